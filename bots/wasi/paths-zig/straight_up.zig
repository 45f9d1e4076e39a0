//! Straight Up: a paths bot in Zig, built to WebAssembly (WASI preview 1) for koth. It builds
//! one straight path, bottom row to top, in one column: each activation claims the lowest free
//! vertex of its column above the vertices already active there (anyone's: a path may use any
//! active vertex); a broken vertex in the way moves it to the next column east. Never destroys.
//!
//! Protocol (docs/games/paths.md): reports `BEGIN b t side`, `BROKEN t x,y …`, `OWNED t x,y …`
//! need no answer; prompts `DESTROY t` and `ACTIVATE t` one line each (`NONE`, `VERTEX x,y`);
//! `SCORE` means exit. It reads and writes through WASI's own calls, which every Zig release
//! keeps, so it builds with the `ziglang` package of PyPI as it is.
const std = @import("std");
const wasi = std.os.wasi;

const MAX_SIDE = 256;
const State = enum(u8) { inactive, active, broken };

var grid: [MAX_SIDE * MAX_SIDE]State = @splat(.inactive);
var side: usize = 0;
var column: usize = 0;

fn at(x: usize, y: usize) *State {
    return &grid[y * MAX_SIDE + x];
}

fn say(text: []const u8) void {
    const iov = [1]wasi.ciovec_t{.{ .base = text.ptr, .len = text.len }};
    var written: usize = 0;
    _ = wasi.fd_write(1, &iov, 1, &written);
}

/// Marks every `x,y` of a report's words after its turn with `state`.
fn mark(words: *std.mem.TokenIterator(u8, .scalar), state: State) void {
    _ = words.next(); // the turn
    while (words.next()) |word| {
        const comma = std.mem.indexOfScalar(u8, word, ',') orelse continue;
        const x = std.fmt.parseInt(usize, word[0..comma], 10) catch continue;
        const y = std.fmt.parseInt(usize, word[comma + 1 ..], 10) catch continue;
        if (x < side and y < side) at(x, y).* = state;
    }
}

/// The vertex to claim: the lowest free one of the column above its active ones.
fn activate() void {
    var tried: usize = 0;
    while (side > 0 and tried < side) : (tried += 1) {
        var y: usize = 0;
        while (y < side) : (y += 1) {
            switch (at(column, y).*) {
                .active => continue,
                .inactive => {
                    var text: [32]u8 = undefined;
                    const line = std.fmt.bufPrint(&text, "VERTEX {d},{d}\n", .{ column, y }) catch return say("NONE\n");
                    return say(line);
                },
                .broken => break,
            }
        }
        if (y == side) return say("NONE\n"); // the path is complete
        column = (column + 1) % side;
    }
    say("NONE\n");
}

/// Handles one line; returns false at `SCORE`.
fn handle(line: []const u8) bool {
    var words = std.mem.tokenizeScalar(u8, line, ' ');
    const command = words.next() orelse return true;
    if (std.mem.eql(u8, command, "BEGIN")) {
        _ = words.next();
        _ = words.next();
        side = @min(MAX_SIDE, std.fmt.parseInt(usize, words.next() orelse "0", 10) catch 0);
        column = side / 2;
        @memset(&grid, .inactive);
    } else if (std.mem.eql(u8, command, "DESTROY")) {
        say("NONE\n");
    } else if (std.mem.eql(u8, command, "ACTIVATE")) {
        activate();
    } else if (std.mem.eql(u8, command, "BROKEN")) {
        mark(&words, .broken);
    } else if (std.mem.eql(u8, command, "OWNED")) {
        mark(&words, .active);
    } else if (std.mem.eql(u8, command, "SCORE")) {
        return false;
    }
    return true;
}

pub fn main() void {
    var buf: [1 << 16]u8 = undefined;
    var have: usize = 0;
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
                if (!handle(buf[start..i])) return;
                start = i + 1;
            }
        }
        std.mem.copyForwards(u8, buf[0 .. have - start], buf[start..have]);
        have -= start;
    }
}
