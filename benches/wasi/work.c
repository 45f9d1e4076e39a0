/* A C bot's kind of work for the fuel benchmark (benches/wasm.rs): a grid searched breadth
 * first from every cell, as a paths bot looks for routes, with no imports, so the same module
 * runs with and without fuel metering. Built with:
 * clang --target=wasm32-wasi -O2 -nostartfiles -Wl,--no-entry -Wl,--export=work -o work.wasm work.c */
#define SIDE 32
static unsigned char grid[SIDE * SIDE];
static int queue[SIDE * SIDE], seen[SIDE * SIDE];

int work(int seed) {
    unsigned state = (unsigned)seed * 2654435761u + 1;
    for (int i = 0; i < SIDE * SIDE; i++) {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5;
        grid[i] = (state % 4) == 0;
    }
    int total = 0;
    for (int start = 0; start < SIDE; start++) {
        for (int i = 0; i < SIDE * SIDE; i++) seen[i] = 0;
        int head = 0, tail = 0;
        if (grid[start]) continue;
        queue[tail++] = start;
        seen[start] = 1;
        while (head < tail) {
            int at = queue[head++], x = at % SIDE, y = at / SIDE;
            int next[3] = {y + 1 < SIDE ? at + SIDE : -1, (y + 1 < SIDE) ? (y + 1) * SIDE + (x + 1) % SIDE : -1,
                           (y + 1 < SIDE) ? (y + 1) * SIDE + (x + SIDE - 1) % SIDE : -1};
            for (int k = 0; k < 3; k++) {
                int n = next[k];
                if (n >= 0 && !grid[n] && !seen[n]) { seen[n] = 1; queue[tail++] = n; }
            }
        }
        total += tail;
    }
    return total;
}
