/* Win or Block: a noughts & crosses bot for koth in C, built to WebAssembly (WASI) here and
 * playable natively the same (gcc -O2 -o win_or_block win_or_block.c; run = "./win_or_block").
 *
 * It wins if it can, blocks the opponent's win if it must, else takes the centre, then a corner,
 * then any free square: ../../ttt-python/win_or_block.py in C.
 *
 * Protocol (docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> answer a square 0..8
 * (one line, flushed), `END WIN|LOSS|DRAW`; the end of input means exit.
 */
#include <stdio.h>
#include <string.h>

static const int lines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

/* A free square that gives `mark` three in a line, or -1. */
static int completing(const char *board, char mark) {
    for (int i = 0; i < 8; i++) {
        int mine = 0, free = -1;
        for (int j = 0; j < 3; j++) {
            char c = board[lines[i][j]];
            if (c == mark) mine++;
            else if (c == '.') free = lines[i][j];
        }
        if (mine == 2 && free >= 0) return free;
    }
    return -1;
}

static int choose(const char *board, char me) {
    static const int order[9] = {4, 0, 2, 6, 8, 1, 3, 5, 7};
    int square = completing(board, me);
    if (square < 0) square = completing(board, me == 'X' ? 'O' : 'X');
    for (int i = 0; square < 0 && i < 9; i++)
        if (board[order[i]] == '.') square = order[i];
    return square;
}

int main(void) {
    char line[256], board[16];
    char me = 'X';
    while (fgets(line, sizeof line, stdin)) {
        char mark;
        if (sscanf(line, "START %c", &mark) == 1) {
            me = mark;
        } else if (sscanf(line, "MOVE %9s", board) == 1 && strlen(board) == 9) {
            printf("%d\n", choose(board, me));
            fflush(stdout);
        }
    }
    return 0;
}
