/* ColorScorePlayer, the Genetic Rat Race's example player, over koth's lean protocol.
 *
 * Of the three forward moves whose target is on the track, take the one whose colour scores
 * highest in the genome (the 6 bits at 6*colour), ties broken at random (seeded per board):
 * the same decisions, and the same random draws, as ../ratrace-colorscore-c over the text
 * protocol. With the argument `first`, ties go to the first tied move instead (koth's built-in
 * `colorscore-first`), which tests use to play the same game every way.
 *
 * The board comes once; each specimen's genome once, when it is born; then each turn one line
 * of cells, a token per specimen of the last turn (`x` if it died) and per newborn. The bot
 * keeps its specimens' genomes in koth's order and answers one digit per living specimen.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WIDTH 53
#define HEIGHT 15
#define CELLS (WIDTH * HEIGHT)

static char *buf;
static size_t cap = 1 << 20, start, end;

/* The next line (without its newline, NUL-terminated in place), or NULL at end of input. */
static char *next_line(void) {
    for (;;) {
        char *nl = memchr(buf + start, '\n', end - start);
        if (nl) {
            char *line = buf + start;
            *nl = 0;
            start = nl - buf + 1;
            return line;
        }
        if (start > 0) { /* keep the partial line at the front */
            memmove(buf, buf + start, end - start);
            end -= start;
            start = 0;
        }
        if (end == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf) exit(1);
        }
        ssize_t n = read(0, buf + end, cap - end);
        if (n <= 0) return NULL;
        end += n;
    }
}

static uint64_t rng_state = 1;
static uint64_t next_random(void) { /* xorshift64*, as ../ratrace-colorscore-c */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static signed char hex[256]; /* each hex digit's value, -1 for other bytes */

typedef unsigned __int128 genome_t;

/* The colours of each cell's three forward targets, (1,-1), (1,0), (1,1); -1 off the track. */
static signed char targets[CELLS][3];

static void read_board(const char *digits) {
    for (int cell = 0; cell < CELLS; cell++) {
        int x = cell % WIDTH, y = cell / WIDTH;
        for (int k = 0; k < 3; k++) {
            int tx = x + 1, ty = y + k - 1;
            int on = tx < WIDTH && ty >= 0 && ty < HEIGHT;
            targets[cell][k] = on ? hex[(unsigned char)digits[ty * WIDTH + tx]] : -1;
        }
    }
}

static genome_t parse_genome(const char *digits) {
    genome_t g = 0;
    for (int i = 0; i < 25; i++) g = g << 4 | (genome_t)hex[(unsigned char)digits[i]];
    return g;
}

int main(int argc, char **argv) {
    static const char digit[3] = {'2', '5', '8'}; /* 3*(dy+1) + (dx+1) for (1,-1), (1,0), (1,1) */
    int first = argc > 1 && strcmp(argv[1], "first") == 0;
    memset(hex, -1, sizeof hex);
    for (int d = 0; d < 10; d++) hex['0' + d] = (signed char)d;
    for (int d = 0; d < 6; d++) hex['a' + d] = (signed char)(10 + d);
    buf = malloc(cap);
    genome_t *genomes = NULL; /* the specimens of the last turn, in koth's order, then newborns */
    size_t count = 0, genomes_cap = 0;
    char *out = NULL;
    size_t out_cap = 0;
    char *line;
    while ((line = next_line())) {
        if (strncmp(line, "RATRACE ", 8) == 0) {
            char *seed = strchr(line + 8, ' ');
            rng_state = seed ? strtoull(seed + 1, NULL, 10) | 1 : 1;
            count = 0;
        } else if (strncmp(line, "BOARD ", 6) == 0) {
            read_board(line + 6);
        } else if (strncmp(line, "TURN ", 5) == 0) {
            char *p = strchr(line + 5, ' ');
            long n = strtol(p + 1, &p, 10), born = strtol(p, NULL, 10);
            if (genomes_cap < count + born) {
                genomes_cap = 2 * (count + born);
                genomes = realloc(genomes, genomes_cap * sizeof *genomes);
            }
            for (long i = 0; i < born; i++) {
                char *g = next_line();
                if (!g) return 0;
                genomes[count++] = parse_genome(g);
            }
            if (out_cap < (size_t)n + 1) {
                out_cap = (size_t)n + 1;
                out = realloc(out, out_cap);
            }
            char *cells = next_line();
            if (!cells) return 0;
            size_t alive = 0;
            for (size_t i = 0; i < count; i++) {
                while (*cells == ' ') cells++;
                if (*cells == 'x') { /* died: its slot goes */
                    cells++;
                    continue;
                }
                int cell = 0;
                while (*cells >= '0' && *cells <= '9') cell = cell * 10 + (*cells++ - '0');
                genome_t g = genomes[i];
                genomes[alive] = g;
                int scores[3], best = -1;
                for (int k = 0; k < 3; k++) {
                    int colour = targets[cell][k];
                    scores[k] = colour < 0 ? -1 : (int)(g >> (6 * colour)) & 63;
                    if (scores[k] > best) best = scores[k];
                }
                int choices[3], tied = 0;
                for (int k = 0; k < 3; k++) {
                    choices[tied] = k;
                    tied += scores[k] == best;
                }
                int pick = tied == 1 || first ? choices[0] : choices[next_random() % tied];
                if (alive < (size_t)n) out[alive] = digit[pick];
                alive++;
            }
            count = alive;
            if (alive != (size_t)n) return 1; /* koth and this bot disagree: say so by leaving */
            out[alive] = '\n';
            for (size_t done = 0; done <= alive;) {
                ssize_t w = write(1, out + done, alive + 1 - done);
                if (w <= 0) return 1;
                done += w;
            }
        }
    }
    return 0;
}
