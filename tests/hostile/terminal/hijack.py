# Tries to drive the terminal of whoever reads koth's reports: on its first prompt it writes
# escape sequences to stderr (set the title, clear the screen, write the clipboard with OSC 52,
# a CR that overwrites the line with a fake verdict, BEL, a C1 CSI, a bidi override, a
# zero-width space), answers a line full of them (different each run, so `--drive` reports it),
# and exits, so its stderr is quoted in a fault's reason.
import os
import sys

HOSTILE = (
    "\x1b]0;pwned\x07"  # the window title
    "\x1b[2J\x1b[H"  # clear the screen
    "\x1b]52;c;aGlqYWNrZWQ=\x07"  # the clipboard (OSC 52)
    "\rall bots passed\x07"  # overwrite the line, ring
    "\u009b31m\u202eDESREVER\u200b"  # C1 CSI, a bidi override, a zero-width space
)

sys.stdin.readline()
for _ in range(3):
    sys.stderr.write(HOSTILE + "\n")
sys.stderr.flush()
print(HOSTILE + str(os.getpid()), flush=True)
sys.exit(1)
