//! Win or Block in Zig, built to WebAssembly (WASI preview 1) for koth: wins if it can, blocks
//! the opponent's win if it must, else takes the centre, then a corner, then any free square
//! (../ttt-win-or-block/win_or_block.c in Zig). It reads and writes through WASI's own calls,
//! which every Zig release keeps, so it builds with the `ziglang` package of PyPI as it is.
//!
//! Protocol (docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> a square 0..8 on a
//! line of its own, `END WIN|LOSS|DRAW`; the end of input means exit.
const wasi = @import("std").os.wasi;

const lines = [8][3]u8{
    .{ 0, 1, 2 }, .{ 3, 4, 5 }, .{ 6, 7, 8 }, .{ 0, 3, 6 },
    .{ 1, 4, 7 }, .{ 2, 5, 8 }, .{ 0, 4, 8 }, .{ 2, 4, 6 },
};

/// A free square that gives `mark` three in a line, if there is one.
fn completing(board: []const u8, mark: u8) ?u8 {
    for (lines) |line| {
        var mine: u8 = 0;
        var free: ?u8 = null;
        for (line) |square| {
            if (board[square] == mark) mine += 1 else if (board[square] == '.') free = square;
        }
        if (mine == 2 and free != null) return free;
    }
    return null;
}

fn choose(board: []const u8, me: u8) u8 {
    if (completing(board, me)) |square| return square;
    if (completing(board, if (me == 'X') 'O' else 'X')) |square| return square;
    for ([_]u8{ 4, 0, 2, 6, 8, 1, 3, 5, 7 }) |square| {
        if (board[square] == '.') return square;
    }
    return 0;
}

fn answer(square: u8) void {
    const text = [2]u8{ '0' + square, '\n' };
    const iov = [1]wasi.ciovec_t{.{ .base = &text, .len = text.len }};
    var written: usize = 0;
    _ = wasi.fd_write(1, &iov, 1, &written);
}

fn play(line: []const u8, me: *u8) void {
    if (line.len >= 7 and @import("std").mem.startsWith(u8, line, "START ")) {
        me.* = line[6];
    } else if (line.len >= 14 and @import("std").mem.startsWith(u8, line, "MOVE ")) {
        answer(choose(line[5..14], me.*));
    }
}

pub fn main() void {
    var buf: [4096]u8 = undefined;
    var have: usize = 0;
    var me: u8 = 'X';
    while (true) {
        if (have == buf.len) have = 0; // a line longer than any of the game's: dropped
        const iov = [1]wasi.iovec_t{.{ .base = buf[have..].ptr, .len = buf.len - have }};
        var read: usize = 0;
        if (wasi.fd_read(0, &iov, 1, &read) != .SUCCESS or read == 0) return;
        have += read;
        var start: usize = 0;
        var i: usize = 0;
        while (i < have) : (i += 1) {
            if (buf[i] == '\n') {
                play(buf[start..i], &me);
                start = i + 1;
            }
        }
        @import("std").mem.copyForwards(u8, buf[0 .. have - start], buf[start..have]);
        have -= start;
    }
}
