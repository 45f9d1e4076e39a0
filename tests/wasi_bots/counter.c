// A WASI noughts & crosses bot that learns a little: it counts the games it has finished in
// /data/count (its data folder, kept from game to game) and answers the first free square.
#include <stdio.h>
#include <string.h>

int main(void) {
    long games = 0;
    FILE *in = fopen("/data/count", "r");
    if (in) {
        if (fscanf(in, "%ld", &games) != 1) games = 0;
        fclose(in);
    }
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "MOVE ", 5) == 0) {
            const char *board = line + 5;
            int square = (int)(strchr(board, '.') - board);
            printf("%d\n", square);
            fflush(stdout);
        } else if (strncmp(line, "END ", 4) == 0) {
            games++;
            FILE *out = fopen("/data/count", "w");
            if (!out) return 1;
            fprintf(out, "%ld\n", games);
            fclose(out);
        }
    }
    return 0;
}
