#!/bin/sh
# The smallest external bot: answers every decision with the first legal move.
while read -r _line; do
    echo '{"move": 0}'
done
