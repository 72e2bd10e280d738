#!/bin/sh
# forkexec.sh: a shell that forks subshells and execs short-lived programs, so the
# recording has FORK/COMM/EXEC/EXIT records for many processes and comms
# (sh, expr, true, cat, the hot program). Usage: forkexec.sh HOT_BINARY
hot=$1
i=0
while [ $i -lt 40 ]; do
  i=$(expr $i + 1)        # fork + exec expr
  /bin/true
  ( j=0; while [ $j -lt 300 ]; do j=$((j + 1)); done )   # forked subshell spinning
  echo $i | cat > /dev/null
done
exec "$hot" 0.15          # the shell process becomes the hot program
