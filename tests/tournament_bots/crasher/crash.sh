#!/bin/sh
# Reads the first message, then exits without answering; says on stderr that it was started.
echo "crasher: started" >&2
read -r line
exit 3
