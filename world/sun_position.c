/* Where the sun and the moon stand for a place, a date and an hour: NOAA's
 * solar position algorithm (the ESRL solar calculator and its spreadsheet,
 * after Meeus) and a low-precision lunar series with the moon's phase. */
#include <math.h>

#include "world/sky_internal.h"

#define DEG (3.14159265358979323846 / 180.0)

static double wrap360(double a) {
    a = fmod(a, 360.0);
    return a < 0 ? a + 360.0 : a;
}

double _oak_sky_julian_day(const _oak_sky_when *w) {
    /* Julian day number of 1 January of the year (Gregorian), at 0h UT */
    long y = (long)w->year + 4800 - 1, m = 1 + 12 - 3;
    long jdn = 1 + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32045;
    return (double)jdn - 0.5 + (w->day_of_year - 1) + (w->hour - w->utc_offset) / 24.0;
}

_oak_sky_body _oak_sun_position(const _oak_sky_when *w) {
    double jd = _oak_sky_julian_day(w);
    double t = (jd - 2451545.0) / 36525.0; /* Julian centuries from J2000 */
    double l0 = wrap360(280.46646 + t * (36000.76983 + t * 0.0003032));
    double m = 357.52911 + t * (35999.05029 - 0.0001537 * t);
    double e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t);
    double c = sin(m * DEG) * (1.914602 - t * (0.004817 + 0.000014 * t)) +
               sin(2 * m * DEG) * (0.019993 - 0.000101 * t) + sin(3 * m * DEG) * 0.000289;
    double true_long = l0 + c;
    double omega = 125.04 - 1934.136 * t;
    double app_long = true_long - 0.00569 - 0.00478 * sin(omega * DEG);
    double mean_obliq =
        23.0 + (26.0 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60.0) / 60.0;
    double obliq = mean_obliq + 0.00256 * cos(omega * DEG);
    double decl = asin(sin(obliq * DEG) * sin(app_long * DEG)) / DEG;
    double y = tan(obliq * DEG / 2);
    y *= y;
    double eot = 4.0 / DEG *
                 (y * sin(2 * l0 * DEG) - 2 * e * sin(m * DEG) +
                  4 * e * y * sin(m * DEG) * cos(2 * l0 * DEG) - 0.5 * y * y * sin(4 * l0 * DEG) -
                  1.25 * e * e * sin(2 * m * DEG)); /* minutes */
    double minutes = w->hour * 60.0;
    double tst = fmod(minutes + eot + 4.0 * w->longitude - 60.0 * w->utc_offset, 1440.0);
    if (tst < 0) tst += 1440.0;
    double ha = tst / 4.0 < 0 ? tst / 4.0 + 180.0 : tst / 4.0 - 180.0;
    double lat = w->latitude * DEG;
    double cz = sin(lat) * sin(decl * DEG) + cos(lat) * cos(decl * DEG) * cos(ha * DEG);
    cz = cz > 1 ? 1 : cz < -1 ? -1 : cz;
    double zenith = acos(cz) / DEG;
    double el = 90.0 - zenith;
    /* NOAA's approximate refraction, arc seconds */
    double r = 0, te = tan(el * DEG);
    if (el > 85.0)
        r = 0;
    else if (el > 5.0)
        r = 58.1 / te - 0.07 / (te * te * te) + 0.000086 / pow(te, 5);
    else if (el > -0.575)
        r = 1735.0 + el * (-518.2 + el * (103.4 + el * (-12.79 + el * 0.711)));
    else
        r = -20.772 / te;
    double az;
    double den = cos(lat) * sin(zenith * DEG);
    if (fabs(den) < 1e-12) {
        az = w->latitude > 0 ? 180.0 : 0.0; /* sun at the zenith or a pole */
    } else {
        double ca = (sin(lat) * cz - sin(decl * DEG)) / den;
        ca = ca > 1 ? 1 : ca < -1 ? -1 : ca;
        double a = acos(ca) / DEG;
        az = ha > 0 ? wrap360(a + 180.0) : wrap360(540.0 - a);
    }
    _oak_sky_body b = {el + r / 3600.0, az, el, wrap360(app_long)};
    return b;
}

/* Local sidereal time in degrees (mean, Meeus 12.4). */
static double sidereal_deg(double jd, double longitude) {
    double d = jd - 2451545.0;
    return wrap360(280.46061837 + 360.98564736629 * d + longitude);
}

_oak_sky_body _oak_moon_position(const _oak_sky_when *w, double *lit, bool *waxing,
                                 double *phase_angle_deg) {
    double jd = _oak_sky_julian_day(w);
    double d = jd - 2451545.0;
    /* mean elements (degrees): longitude, anomaly, argument of latitude,
       elongation from the sun; the sun's anomaly */
    double l = 218.316 + 13.176396 * d, mm = 134.963 + 13.064993 * d;
    double f = 93.272 + 13.229350 * d, dd = 297.850 + 12.190749 * d, ms = 357.529 + 0.98560028 * d;
    double lon = l + 6.289 * sin(mm * DEG) + 1.274 * sin((2 * dd - mm) * DEG) +
                 0.658 * sin(2 * dd * DEG) + 0.214 * sin(2 * mm * DEG) - 0.186 * sin(ms * DEG) -
                 0.114 * sin(2 * f * DEG);
    double lat = 5.128 * sin(f * DEG) + 0.281 * sin((mm + f) * DEG) + 0.278 * sin((mm - f) * DEG) +
                 0.173 * sin((2 * dd - f) * DEG);
    lon = wrap360(lon);
    double eps = (23.439 - 0.0000004 * d) * DEG;
    double ra = atan2(sin(lon * DEG) * cos(eps) - tan(lat * DEG) * sin(eps), cos(lon * DEG)) / DEG;
    double dec = asin(sin(lat * DEG) * cos(eps) + cos(lat * DEG) * sin(eps) * sin(lon * DEG)) / DEG;
    double h = (sidereal_deg(jd, w->longitude) - ra) * DEG;
    double phi = w->latitude * DEG;
    double el = asin(sin(phi) * sin(dec * DEG) + cos(phi) * cos(dec * DEG) * cos(h)) / DEG;
    /* Meeus 13.5: from the south, westward; +180 for from the north */
    double az = wrap360(atan2(sin(h), cos(h) * sin(phi) - tan(dec * DEG) * cos(phi)) / DEG + 180.0);
    _oak_sky_body sun = _oak_sun_position(w);
    double elong = acos(cos(lat * DEG) * cos((lon - sun.ecliptic_longitude) * DEG)) / DEG;
    /* the phase angle is nearly 180 - elongation (the sun is 400 times further) */
    double phase = 180.0 - elong;
    if (lit) *lit = 0.5 * (1.0 + cos(phase * DEG));
    if (waxing) *waxing = sin((lon - sun.ecliptic_longitude) * DEG) > 0;
    if (phase_angle_deg) *phase_angle_deg = phase;
    _oak_sky_body b = {el, az, el, lon};
    return b;
}

double _oak_sky_sidereal(const _oak_sky_when *w) {
    return sidereal_deg(_oak_sky_julian_day(w), w->longitude);
}

void _oak_sky_direction(double elevation_deg, double azimuth_deg, float out[3]) {
    double e = elevation_deg * DEG, a = azimuth_deg * DEG;
    out[0] = (float)(cos(e) * sin(a));
    out[1] = (float)sin(e);
    out[2] = (float)(-cos(e) * cos(a));
}
