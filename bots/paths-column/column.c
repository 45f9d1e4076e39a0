/* Column: a sample bot for koth's Grid-Routing Battle ("paths"), in C.
 *
 * Strategy: build one path from a source to a sink, one row per turn. The "tip" is the highest
 * vertex of our path. Each activation names a free vertex just above the tip (straight up first,
 * then diagonally, the grid wrapping east-west); active vertices above the tip, ours or anyone's,
 * are walked onto for free, since a path may use any active vertex. When every vertex above the
 * tip is broken, the path is abandoned and a new one starts from another source. Never destroys.
 *
 * Protocol: see ../paths-random-builder/random_builder.py or docs/games/paths.md. Prompts (DESTROY t,
 * ACTIVATE t) need one answer line, flushed; reports (BEGIN, BROKEN, OWNED) need none; SCORE
 * means exit. The process starts afresh each round; data.txt keeps the round count so the
 * starting column differs from round to round while staying deterministic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The round counter. Built to WebAssembly (../wasi/paths-column), the bot may write only its
 * scratch folder, /tmp, where koth keeps its private file. */
#ifdef __wasi__
#define DATA_FILE "/tmp/data.txt"
#else
#define DATA_FILE "data.txt"
#endif

enum { INACTIVE = 0, ACTIVE = 1, BROKEN = 2 };

static int side;
static unsigned char *cell; /* cell[y * side + x] */
static int tip_x = -1, tip_y = -1;
static int start_x;

static unsigned char *at(int x, int y) { return &cell[y * side + ((x % side) + side) % side]; }

/* Walk the tip up over active vertices; return the free vertex to claim next, or 0 if none. */
static int next_vertex(int *vx, int *vy) {
    static const int order[3] = {0, -1, 1};
    for (;;) {
        if (tip_y < 0) { /* a new path: the first free source from start_x eastwards */
            for (int i = 0; i < side; i++) {
                int x = (start_x + i) % side;
                if (*at(x, 0) == ACTIVE) { tip_x = x; tip_y = 0; break; }
                if (*at(x, 0) == INACTIVE) { *vx = x; *vy = 0; return 1; }
            }
            if (tip_y < 0) return 0;
        }
        if (tip_y == side - 1) return 0; /* the path is complete */
        int moved = 0;
        for (int i = 0; i < 3 && !moved; i++) {
            int x = ((tip_x + order[i]) % side + side) % side;
            if (*at(x, tip_y + 1) == INACTIVE) { *vx = x; *vy = tip_y + 1; return 1; }
        }
        for (int i = 0; i < 3 && !moved; i++) {
            int x = ((tip_x + order[i]) % side + side) % side;
            if (*at(x, tip_y + 1) == ACTIVE) { tip_x = x; tip_y++; moved = 1; }
        }
        if (!moved) { /* walled in by broken vertices: start over from the next source */
            start_x = (tip_x + 1) % side;
            tip_x = tip_y = -1;
            if (*at(start_x, 0) == BROKEN) start_x = (start_x + 1) % side;
        }
    }
}

/* Marks every vertex of a BROKEN or OWNED report; returns whether our own choice (C1) was valid. */
static int read_report(char *rest, int state, int *ox, int *oy) {
    int own = 1, ok = 0;
    if (!rest) return 0;
    for (char *tok = strtok(rest, " \n"); tok; tok = strtok(NULL, " \n"), own = 0) {
        int x, y;
        if (sscanf(tok, "%d,%d", &x, &y) == 2) {
            *at(x, y) = (unsigned char)state;
            if (own) { ok = 1; *ox = x; *oy = y; }
        }
    }
    return ok;
}

int main(void) {
    static char line[1 << 16];
    int round = 0;
    FILE *data = fopen(DATA_FILE, "r");
    if (data) { if (fscanf(data, "%d", &round) != 1) round = 0; fclose(data); }
    data = fopen(DATA_FILE, "w");
    if (data) { fprintf(data, "%d\n", round + 1); fclose(data); }

    while (fgets(line, sizeof line, stdin)) {
        int b, t, x, y;
        if (sscanf(line, "BEGIN %d %d %d", &b, &t, &side) == 3) {
            cell = calloc((size_t)side * side, 1);
            start_x = (round * 7 + side / 2) % side;
        } else if (strncmp(line, "DESTROY", 7) == 0) {
            puts("NONE");
        } else if (strncmp(line, "ACTIVATE", 8) == 0) {
            if (next_vertex(&x, &y)) printf("VERTEX %d,%d\n", x, y);
            else puts("NONE");
        } else if (strncmp(line, "BROKEN", 6) == 0) {
            read_report(strchr(line + 7, ' '), BROKEN, &x, &y);
        } else if (strncmp(line, "OWNED", 5) == 0) {
            /* Our claim succeeded: it is the new tip (a claim of a source starts the path). */
            if (read_report(strchr(line + 6, ' '), ACTIVE, &x, &y)) { tip_x = x; tip_y = y; }
        } else if (strncmp(line, "SCORE", 5) == 0) {
            break;
        }
        fflush(stdout);
    }
    free(cell);
    return 0;
}
