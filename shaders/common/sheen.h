/* The sheen's directional albedo E(NdotV, roughness) (docs/SHADING.md
 * "Lobes"), for C and GLSL: the Charlie distribution with Ashikhmin's
 * visibility integrated over the hemisphere (1500 x 1500 midpoint steps, no
 * Fresnel, alpha = max(roughness, 0.07)^2), clamped to 1 where Ashikhmin's
 * visibility returns more near grazing. 8 x 8: NdotV = (i + 0.5) / 8 across,
 * roughness j / 7 down; read bilinear, clamped at the edges. */
#ifndef OAK_SHEEN_H
#define OAK_SHEEN_H

#define OAK_SHEEN_E_SIZE 8
// clang-format off
#define OAK_SHEEN_E_VALUES 1.0000, 0.1275, 0.0068, 0.0002, 0.0000, 0.0000, 0.0000, 0.0000, 1.0000, 0.4302, 0.1299, 0.0333, 0.0066, 0.0009, 0.0001, 0.0000, 0.9788, 0.5462, 0.3130, 0.1738, 0.0903, 0.0418, 0.0158, 0.0036, 0.7795, 0.5221, 0.3625, 0.2501, 0.1676, 0.1063, 0.0610, 0.0284, 0.6687, 0.4890, 0.3718, 0.2836, 0.2132, 0.1554, 0.1072, 0.0668, 0.6020, 0.4628, 0.3704, 0.2988, 0.2395, 0.1887, 0.1439, 0.1037, 0.5593, 0.4437, 0.3666, 0.3063, 0.2556, 0.2111, 0.1710, 0.1340, 0.5307, 0.4298, 0.3628, 0.3103, 0.2659, 0.2267, 0.1909, 0.1575
// clang-format on

#ifdef __STDC_VERSION__ /* C */
static const float oak_sheen_e_table[64] = {OAK_SHEEN_E_VALUES};
static inline float oak_sheen_e(float mu, float rough) {
    float x = mu * 8.0f - 0.5f, y = rough * 7.0f;
    x = x < 0.0f ? 0.0f : x > 7.0f ? 7.0f : x;
    y = y < 0.0f ? 0.0f : y > 7.0f ? 7.0f : y;
    int i = (int)x, j = (int)y;
    i = i < 6 ? i : 6, j = j < 6 ? j : 6;
    float fx = x - (float)i, fy = y - (float)j;
    const float *r0 = oak_sheen_e_table + j * 8 + i, *r1 = r0 + 8;
    float a = r0[0] + (r0[1] - r0[0]) * fx, b = r1[0] + (r1[1] - r1[0]) * fx;
    return a + (b - a) * fy;
}
#else /* GLSL: the table rides in the view block (oak_gpu_view.sheen_e) */
float oak_sheen_e_at(int k) { return view.sheen_e[k >> 2][k & 3]; }
float oak_sheen_e(float mu, float rough) {
    float x = clamp(mu * 8.0 - 0.5, 0.0, 7.0), y = clamp(rough * 7.0, 0.0, 7.0);
    int i = min(int(x), 6), j = min(int(y), 6);
    float fx = x - float(i), fy = y - float(j);
    int k = j * 8 + i;
    float a = oak_sheen_e_at(k) + (oak_sheen_e_at(k + 1) - oak_sheen_e_at(k)) * fx;
    float b = oak_sheen_e_at(k + 8) + (oak_sheen_e_at(k + 9) - oak_sheen_e_at(k + 8)) * fx;
    return a + (b - a) * fy;
}
#endif

#endif
