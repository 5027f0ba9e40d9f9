/* Private pieces of the time of day: where the sun and moon stand (NOAA's
 * solar algorithm, a low-precision lunar series) and the CPU atmosphere that
 * bakes the sky image (Hillaire 2020). Tests call these directly. */
#ifndef OAK_WORLD_SKY_INTERNAL_H
#define OAK_WORLD_SKY_INTERNAL_H

#include <oak/world.h>

/* A place and date with every default filled in (oak_world_resolve_time). */
typedef struct _oak_sky_when {
    double latitude, longitude; /* degrees, north and east positive */
    double utc_offset;          /* hours east of UTC: local standard time = UTC + this */
    int year, day_of_year;      /* day 1 = 1 January */
    double hour;                /* local standard time, [0, 24] */
} _oak_sky_when;

/* A body's place in the sky: elevation above the horizon and azimuth
   clockwise from north, degrees. */
typedef struct _oak_sky_body {
    double elevation, azimuth;
    double elevation_geometric; /* sun: before refraction (NOAA's "solar elevation angle") */
    double ecliptic_longitude;  /* apparent, degrees */
} _oak_sky_body;

/* Julian day of the moment (UT). */
double _oak_sky_julian_day(const _oak_sky_when *w);
/* NOAA's solar position (the ESRL calculator and its spreadsheet): elevation
   corrected for refraction as NOAA's, azimuth from north. */
_oak_sky_body _oak_sun_position(const _oak_sky_when *w);
/* The moon from a low-precision series (the main periodic terms of the
   ecliptic longitude and latitude, geocentric: about 0.3 degrees in the
   series, up to 1 degree of parallax ignored). *lit: illuminated fraction
   of the disc [0, 1]; *waxing: the lit limb faces west (evening moon);
   each output may be NULL. */
_oak_sky_body _oak_moon_position(const _oak_sky_when *w, double *lit, bool *waxing,
                                 double *phase_angle_deg);

/* Local mean sidereal time, degrees (the stars turn with it). */
double _oak_sky_sidereal(const _oak_sky_when *w);
/* World direction toward a body (+Y up, -Z north, +X east). */
void _oak_sky_direction(double elevation_deg, double azimuth_deg, float out[3]);

/* ---- the atmosphere (world/atmosphere.c) ---------------------------------- */

/* Illuminance of the sun and the full moon above the atmosphere, lux. */
#define OAK_SKY_SUN_LUX_TOA       128000.0
#define OAK_SKY_FULL_MOON_LUX_TOA 0.26

/* The atmosphere's tables (transmittance, multiple scattering): built on
   the first call, shared and read-only after. */
typedef struct _oak_atmosphere _oak_atmosphere;
const _oak_atmosphere *_oak_atmosphere_get(void);
/* Transmittance from the ground (a viewer at 0 m) to space toward
   elevation_deg, per channel; 0 where the ray meets the ground. */
void _oak_atmosphere_transmittance(const _oak_atmosphere *a, double elevation_deg, float out[3]);
/* Sky radiance seen from the ground toward `view` (unit, +Y up) with a light
   of illuminance 1 above the atmosphere toward `light` (unit): cd/m^2 per lux. */
void _oak_atmosphere_radiance(const _oak_atmosphere *a, const float view[3], const float light[3],
                              float out[3]);

/* Aerial perspective along one view ray (Hillaire 2020, section 5.6): from
   an eye eye_km above the ground along `view` (unit, +Y up) with a light of
   illuminance 1 above the atmosphere toward `light` (unit), the light
   scattered toward the eye (cd/m^2 per lux: single scattering with the
   earth's shadow, plus the multiple-scattering table) and the
   transmittance, per channel, at each of the n distances ends_km (rising).
   One midpoint step between ends, integrated as the sky view's. */
void _oak_atmosphere_march(const _oak_atmosphere *a, double eye_km, const float view[3],
                           const float light[3], uint32_t n, const float *ends_km,
                           float (*scatter)[3], float (*trans)[3]);

/* What a bake produced, besides the image. */
typedef struct _oak_sky_bake {
    float *rgba; /* width x height RGBA32F, oak_free */
    uint32_t width, height;
    float sky_irradiance[3]; /* the image's light on a level card, lux */
    float horizon[3];        /* mean radiance 0-3 degrees up, cd/m^2 */
} _oak_sky_bake;

/* The sky of a moment: sun and moon light above the atmosphere (lux, 0:
   none) toward sun_dir and moon_dir; stars placed by the sidereal time. */
typedef struct _oak_sky_bake_desc {
    float sun_dir[3], moon_dir[3];
    double sun_lux, moon_lux; /* above the atmosphere; the disc's phase is from the directions */
    double latitude, sidereal_deg; /* for the stars */
} _oak_sky_bake_desc;
oak_result _oak_sky_bake_image(_oak_sky_bake *out, const _oak_atmosphere *a,
                               const _oak_sky_bake_desc *d);

#endif
