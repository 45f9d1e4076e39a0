// Noughts & crosses bot for koth, in Java: wins if it can, blocks if it must, otherwise takes a
// corner, then the centre, then any free square.
//
// Protocol (see docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> answer a square 0..8,
// `END WIN|LOSS|DRAW`. Answers are flushed line by line: koth waits for each one.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class CornerKeeper {
    static final int[][] LINES = {
        {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}
    };
    static final int[] PREFERENCE = {0, 2, 6, 8, 4, 1, 3, 5, 7};

    /** A free square that gives `mark` three in a line, or -1. */
    static int completing(String board, char mark) {
        for (int[] line : LINES) {
            int mine = 0, free = -1;
            for (int square : line) {
                char c = board.charAt(square);
                if (c == mark) mine++;
                else if (c == '.') free = square;
            }
            if (mine == 2 && free >= 0) return free;
        }
        return -1;
    }

    static int choose(String board, char me) {
        char other = me == 'X' ? 'O' : 'X';
        int square = completing(board, me);
        if (square < 0) square = completing(board, other);
        if (square >= 0) return square;
        for (int s : PREFERENCE) {
            if (board.charAt(s) == '.') return s;
        }
        return 0;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        char me = 'X';
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            if (words[0].equals("START") && words.length > 1) {
                me = words[1].charAt(0);
            } else if (words[0].equals("MOVE") && words.length > 1) {
                System.out.println(choose(words[1], me));
                System.out.flush();
            }
        }
    }
}
