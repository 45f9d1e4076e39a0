/* A paths bot that costs nothing: answers every prompt NONE after an optional delay (ms, its
 * first argument) and exits on SCORE. The benchmarks use it so that what they measure is koth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    static char line[1 << 16];
    useconds_t delay = argc > 1 ? (useconds_t)atoi(argv[1]) * 1000 : 0;
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "DESTROY", 7) || !strncmp(line, "ACTIVATE", 8)) {
            if (delay) usleep(delay);
            puts("NONE");
            fflush(stdout);
        } else if (!strncmp(line, "SCORE", 5)) {
            return 0;
        }
    }
    return 0;
}
