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

/* A cell's three forward targets as a move reads them: a target's colour scores in the 6 bits
 * at `shift & 63` of the genome's low word (bits 0..63), or of its middle word (bits 32..95)
 * when `shift & 64` is set. A target off the track reads (1,0)'s score, which is always on the
 * track, and is masked out of the ties: so a move has no branch (koth's built-in reads its
 * targets the same way). Prepared once per board. */
struct targets {
    uint8_t shift[3];
    uint8_t on_track; /* bit k: target k is on the track */
};
static struct targets targets[CELLS];

__attribute__((export_name("ratrace_views"))) int8_t *ratrace_views(void) {
    return &views[0][0];
}

static uint8_t shift_of(int colour) {
    int bit = 6 * colour;
    return (uint8_t)(bit >= 60 ? bit - 32 + 64 : bit);
}

__attribute__((export_name("ratrace_board"))) void ratrace_board(int32_t board, int64_t seed) {
    (void)board;
    (void)seed;
    static const int forward[3] = {8, 13, 18}; /* the view indices of (1,-1), (1,0), (1,1) */
    for (int cell = 0; cell < CELLS; cell++) {
        struct targets t;
        uint8_t ahead = shift_of(views[cell][forward[1]]);
        t.on_track = 0;
        for (int k = 0; k < 3; k++) {
            int colour = views[cell][forward[k]];
            t.shift[k] = colour < 0 ? ahead : shift_of(colour);
            t.on_track |= (colour >= 0) << k;
        }
        targets[cell] = t;
    }
}

/* The move code 3*(dy+1) + (dx+1) of the chosen target: 2, 5 or 8. */
__attribute__((export_name("ratrace_move"))) int32_t ratrace_move(int64_t genome_low,
                                                                 int64_t genome_high,
                                                                 int32_t cell) {
    uint64_t low = (uint64_t)genome_low;
    uint64_t middle = low >> 32 | (uint64_t)genome_high << 32;
    struct targets t = targets[cell];
    unsigned score[3];
    for (int k = 0; k < 3; k++) {
        /* A choice of two words, not an array: an array would live in memory. */
        uint64_t word = t.shift[k] & 64 ? middle : low;
        score[k] = (unsigned)(word >> (t.shift[k] & 63)) & 63;
    }
    unsigned best = score[0] > score[1] ? score[0] : score[1];
    best = best > score[2] ? best : score[2];
    unsigned ties = ((score[0] == best) | (score[1] == best) << 1 | (score[2] == best) << 2) &
                    t.on_track;
    return 2 + 3 * __builtin_ctz(ties);
}
