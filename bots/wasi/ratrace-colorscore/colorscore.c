/* ColorScorePlayer, the Genetic Rat Race's example player, through koth's direct call: koth
 * writes the board's views into this module's memory and calls ratrace_move once per specimen,
 * with no text at all (docs/games/ratrace.md, "The direct call").
 *
 * Of the three forward moves whose target is on the track, take the one whose colour scores
 * highest in the genome (the 6 bits at 6*colour), ties to the first of (1,-1), (1,0), (1,1):
 * koth's built-in `colorscore-first`, decision for decision.
 *
 * Built as a WASI reactor (-mexec-model=reactor): a library koth calls into, with no main; its
 * _initialize sets up wasi-libc, so the same file could use malloc or fprintf(stderr, ...).
 */
#include <stdint.h>

#define WIDTH 53
#define HEIGHT 15
#define CELLS (WIDTH * HEIGHT)

/* Every cell's view, written by koth at each board's start: 5x5 colours row by row for
 * dy = -2..2, dx = -2..2, -1 beyond the track's edges. */
static int8_t views[CELLS][25];

/* A forward target as a move reads it: its colour's score is the 6 bits at `shift` of the
 * genome's low word (bits 0..63) or middle word (bits 32..95); off the track, it is never
 * chosen. Prepared once per board, so a move reads three small entries. */
struct target {
    uint8_t middle, shift, on_track;
};
static struct target targets[CELLS][3];

__attribute__((export_name("ratrace_views"))) int8_t *ratrace_views(void) {
    return &views[0][0];
}

__attribute__((export_name("ratrace_board"))) void ratrace_board(int32_t board, int64_t seed) {
    (void)board;
    (void)seed;
    static const int forward[3] = {8, 13, 18}; /* the view indices of (1,-1), (1,0), (1,1) */
    for (int cell = 0; cell < CELLS; cell++) {
        for (int k = 0; k < 3; k++) {
            int colour = views[cell][forward[k]];
            int bit = 6 * (colour < 0 ? 0 : colour);
            struct target t = {bit >= 60, bit >= 60 ? bit - 32 : bit, colour >= 0};
            targets[cell][k] = t;
        }
    }
}

/* The move code 3*(dy+1) + (dx+1) of the chosen target: 2, 5 or 8. */
__attribute__((export_name("ratrace_move"))) int32_t ratrace_move(int64_t genome_low,
                                                                 int64_t genome_high,
                                                                 int32_t cell) {
    uint64_t low = (uint64_t)genome_low;
    uint64_t middle = low >> 32 | (uint64_t)genome_high << 32;
    const struct target *t = targets[cell];
    int best = -1, pick = 0;
    for (int k = 0; k < 3; k++) {
        /* A choice of two words, not an array: an array would live in memory. */
        uint64_t word = t[k].middle ? middle : low;
        int score = t[k].on_track ? (int)(word >> t[k].shift & 63) : -1;
        if (score > best) {
            best = score;
            pick = k;
        }
    }
    return 2 + 3 * pick;
}
