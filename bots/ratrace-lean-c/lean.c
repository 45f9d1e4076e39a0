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
 * keeps its specimens in koth's order and answers one digit per living specimen.
 *
 * Written for speed, since a bot's time is its own: a genome is turned into its 16 colours'
 * scores once, at birth, so a move is three byte loads; a cell's token is read from the four
 * bytes at its start, loaded at once, with its length and value found by arithmetic; a
 * specimen that died is passed over with no branch; and the ties, which draw random numbers,
 * are noted as they come and broken after the turn's other moves, in the same order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WIDTH 53
#define HEIGHT 15
#define CELLS (WIDTH * HEIGHT)
/* Bytes that may be read past the end of a line: a token is loaded four bytes at a time. */
#define SLACK 8

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
            buf = realloc(buf, cap + SLACK);
            if (!buf) exit(1);
        }
        ssize_t n = read(0, buf + end, cap - end);
        if (n <= 0) return NULL;
        end += n;
    }
}

/* xorshift64*, as ../ratrace-colorscore-c: the state after `state`; the number drawn is that
 * state times 2685821657736338717. */
static uint64_t rng_state = 1;
static inline uint64_t next_state(uint64_t state) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state;
}

static signed char hex[256]; /* each hex digit's value, -1 for other bytes */

/* A specimen as the bot keeps it: each colour's score in its genome, plus one (1 to 64), so
 * that a target off the track, masked to 0, scores below every colour, as -1 did. */
typedef struct {
    uint8_t score[16];
} specimen_t;

/* A cell's three forward targets, (1,-1), (1,0), (1,1): each one's colour (0 off the track)
 * and a mask of 0xff on the track, 0 off it. */
typedef struct {
    uint8_t colour[3], on[3];
} targets_t;
static targets_t targets[CELLS];

/* For the targets that tie for the best score (bit k for target k): the first of them, and
 * how many there are. */
static const uint8_t first_tied[8] = {0, 0, 1, 0, 2, 0, 1, 0};
static const uint8_t tied_count[8] = {0, 1, 1, 2, 1, 2, 2, 3};
/* The n-th of the tied targets, for a tie broken at random. */
static const uint8_t nth_tied[8][3] = {
    {0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}, {0, 2, 0}, {1, 2, 0}, {0, 1, 2}};

/* The target a tie draw r picks among the `tied` ones, the (r % count)-th, by r % 3 and r & 1:
 * a constant divisor, which costs a multiplication where r % count cost a division. */
static uint8_t ties_broken[8][3][2];

static void fill_ties_broken(void) {
    for (int tied = 0; tied < 8; tied++)
        for (int m3 = 0; m3 < 3; m3++)
            for (int m2 = 0; m2 < 2; m2++)
                ties_broken[tied][m3][m2] = nth_tied[tied][tied_count[tied] == 3 ? m3 : m2];
}

static void read_board(const char *digits) {
    for (int cell = 0; cell < CELLS; cell++) {
        int x = cell % WIDTH, y = cell / WIDTH;
        for (int k = 0; k < 3; k++) {
            int tx = x + 1, ty = y + k - 1;
            int on = tx < WIDTH && ty >= 0 && ty < HEIGHT;
            int colour = on ? hex[(unsigned char)digits[ty * WIDTH + tx]] : -1;
            on = on && colour >= 0;
            targets[cell].colour[k] = on ? (uint8_t)colour : 0;
            targets[cell].on[k] = on ? 0xff : 0;
        }
    }
}

/* A genome's 25 hex digits, most significant first (100 bits, of which the scores use the
 * low 96), as each colour's score plus one: the low 16 digits and the 9 above them as two
 * 64-bit words, so every score is a shift by a constant. */
static specimen_t parse_genome(const char *digits) {
    uint64_t high = 0, low = 0;
    for (int i = 0; i < 9; i++) high = high << 4 | (uint64_t)(hex[(unsigned char)digits[i]] & 15);
    for (int i = 9; i < 25; i++) low = low << 4 | (uint64_t)(hex[(unsigned char)digits[i]] & 15);
    specimen_t s;
    for (int colour = 0; colour < 10; colour++) s.score[colour] = (uint8_t)((low >> (6 * colour)) & 63) + 1;
    s.score[10] = (uint8_t)(((low >> 60) | (high << 4)) & 63) + 1;
    for (int colour = 11; colour < 16; colour++) s.score[colour] = (uint8_t)((high >> (6 * colour - 64)) & 63) + 1;
    return s;
}

/* The cell a token of the cells line names (0 for `x`), and its length with the space after
 * it, from the four bytes at its start: digits are the bytes whose value less '0' is below 10;
 * the first byte after them (a space, the line's end or, for `x`, the `x` itself) ends it. */
static inline unsigned read_token(const char *at, unsigned *advance) {
    uint32_t word;
    memcpy(&word, at, 4);
    uint32_t digits = word ^ 0x30303030u;
    uint32_t not_digit = (digits & 0xf0f0f0f0u) | ((digits + 0x06060606u) & 0x10101010u);
    unsigned len = (unsigned)__builtin_ctz(not_digit | 0x80000000u) / 8; /* 0 for `x` */
    uint64_t aligned = (uint64_t)digits << (32 - 8 * len); /* the digits in bytes 1 to 3 */
    *advance = len + 1 + (len == 0);
    return ((aligned >> 8) & 0xff) * 100 + ((aligned >> 16) & 0xff) * 10 + ((aligned >> 24) & 0xff);
}

static const char digit[3] = {'2', '5', '8'}; /* 3*(dy+1) + (dx+1) for (1,-1), (1,0), (1,1) */
static int first;                               /* ties go to the first tied target */
static specimen_t *specimens; /* those of the last turn, in koth's order, then newborns */
static size_t count, specimens_cap;
static char *out;        /* the answer: a digit per specimen told of, and a newline */
static uint32_t *tie_at; /* each tie's specimen (among the living) << 3 | its tied targets */
static size_t out_cap;

/* Moves each specimen told of by the cells line `cells` (NUL-terminated at `cells_end`) and
 * keeps those that live, in order; returns how many do, or -1 if the line has too few tokens
 * or a cell off the board. */
static long move_all(const char *cells, const char *cells_end) {
    size_t alive = 0, ties = 0;
    for (size_t i = 0; i < count; i++) {
        if (cells > cells_end) return -1; /* fewer tokens than specimens */
        unsigned advance;
        unsigned cell = read_token(cells, &advance);
        unsigned lives = cells[0] != 'x';
        cells += advance;
        if (cell >= CELLS) return -1;
        specimen_t s = specimens[i];
        const targets_t *t = &targets[cell];
        uint8_t s0 = s.score[t->colour[0]] & t->on[0];
        uint8_t s1 = s.score[t->colour[1]] & t->on[1];
        uint8_t s2 = s.score[t->colour[2]] & t->on[2];
        uint8_t best = s0 > s1 ? s0 : s1;
        best = best > s2 ? best : s2;
        unsigned tied = (s0 == best) | (s1 == best) << 1 | (s2 == best) << 2;
        /* The first tied target for now; a tie is broken at random below. */
        out[alive] = digit[first_tied[tied]];
        /* The ties, with no branch: ties are common (two targets of one colour) and come
         * unpredictably, and a branch on them here was mispredicted. */
        tie_at[ties] = (uint32_t)alive << 3 | tied;
        ties += lives & (tied_count[tied] > 1);
        /* A specimen that died is written over by the next one that lives. */
        specimens[alive] = s;
        alive += lives;
    }
    /* Each tie draws the next random number, in koth's order: the (r % n)-th of the n tied
     * targets. */
    for (size_t k = 0; k < ties && !first; k++) {
        rng_state = next_state(rng_state);
        uint64_t r = rng_state * 2685821657736338717ULL;
        out[tie_at[k] >> 3] = digit[ties_broken[tie_at[k] & 7][r % 3][r & 1]];
    }
    return (long)alive;
}

/* Plays the turn whose `TURN t n k` line is `header`: reads its newborns and its cells line,
 * and answers. Returns 0, or 1 if the input ended, or -1 if koth and this bot disagree or
 * memory ran out (the bot then says so by leaving). */
static int play_turn(char *header) {
    char *p = strchr(header + 5, ' ');
    if (!p) return -1;
    long n = strtol(p + 1, &p, 10), born = strtol(p, NULL, 10);
    if (n < 0 || born < 0) return -1;
    if (specimens_cap < count + born) {
        specimens_cap = 2 * (count + born);
        specimens = realloc(specimens, specimens_cap * sizeof *specimens);
        if (!specimens) return -1;
    }
    for (long i = 0; i < born; i++) {
        char *g = next_line();
        if (!g) return 1;
        specimens[count++] = parse_genome(g);
    }
    /* Room for a digit per specimen told of, whether it lives or not, and the newline. */
    if (out_cap < count + 1) {
        out_cap = 2 * count + 1;
        out = realloc(out, out_cap);
        tie_at = realloc(tie_at, out_cap * sizeof *tie_at);
        if (!out || !tie_at) return -1;
    }
    const char *cells = next_line();
    if (!cells) return 1;
    long alive = move_all(cells, cells + strlen(cells));
    if (alive != n) return -1;
    count = (size_t)alive;
    out[count] = '\n';
    for (size_t done = 0; done <= count;) {
        ssize_t w = write(1, out + done, count + 1 - done);
        if (w <= 0) return -1;
        done += w;
    }
    return 0;
}

int main(int argc, char **argv) {
    first = argc > 1 && strcmp(argv[1], "first") == 0;
    memset(hex, -1, sizeof hex);
    for (int d = 0; d < 10; d++) hex['0' + d] = (signed char)d;
    for (int d = 0; d < 6; d++) hex['a' + d] = (signed char)(10 + d);
    fill_ties_broken();
    buf = malloc(cap + SLACK);
    if (!buf) return 1;
    char *line;
    while ((line = next_line())) {
        if (strncmp(line, "RATRACE ", 8) == 0) {
            char *seed = strchr(line + 8, ' ');
            rng_state = seed ? strtoull(seed + 1, NULL, 10) | 1 : 1;
            count = 0;
        } else if (strncmp(line, "BOARD ", 6) == 0) {
            read_board(line + 6);
        } else if (strncmp(line, "TURN ", 5) == 0) {
            int played = play_turn(line);
            if (played) return played < 0;
        }
    }
    return 0;
}
