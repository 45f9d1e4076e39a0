/* Keep Away, a Mad Cars bot (protocol: docs/games/madcars.md), in C: the same decisions as the
 * Python version (bots/madcars-keepaway-py), which explains the strategy — drive away from the
 * enemy, and turn the car back upright when it tilts past 0.6 rad.
 *
 * It reads only what it needs from each line: the "tick" messages' my_car x and angle and
 * enemy_car x, found by their keys, so any key order and the long new_match lines do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILT 0.6

static char line[1 << 20];

/* The angle brought into [-pi, pi), with fmod as every version computes it. */
static double upright_angle(double angle) {
    double a = fmod(angle + M_PI, 2 * M_PI);
    if (a < 0) a += 2 * M_PI;
    return a - M_PI;
}

/* The numbers of a car "[[x, y], angle, ...": x and angle, after the key. */
static int read_car(const char *text, const char *key, double *x, double *angle) {
    const char *at = strstr(text, key);
    if (!at) return 0;
    at = strchr(at, '[');
    if (!at) return 0;
    char *end;
    *x = strtod(at + 2, &end);          /* after "[[" */
    end = strchr(end, ']');              /* end of [x, y] */
    if (!end) return 0;
    *angle = strtod(end + 2, NULL);      /* after "], " */
    return 1;
}

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (!strstr(line, "\"type\": \"tick\"")) continue;
        double x, angle, enemy_x, enemy_angle;
        if (!read_car(line, "\"my_car\"", &x, &angle) ||
            !read_car(line, "\"enemy_car\"", &enemy_x, &enemy_angle))
            continue;
        double a = upright_angle(angle);
        const char *command, *why;
        if (fabs(a) > TILT) {
            command = a > 0 ? "left" : "right";
            why = "upright";
        } else {
            command = enemy_x > x ? "left" : "right";
            why = "away";
        }
        printf("{\"command\": \"%s\", \"debug\": \"%s\"}\n", command, why);
        fflush(stdout);
    }
    return 0;
}
