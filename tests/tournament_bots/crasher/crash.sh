#!/bin/sh
# Reads the first message, then exits without answering.
read -r line
exit 3
