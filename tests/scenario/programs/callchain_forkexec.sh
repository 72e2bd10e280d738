#!/bin/sh
# callchain_forkexec.sh: a shell that forks subshells, pipelines and execs short-lived
# programs (expr, sed, sort, cat), so call graphs cross many processes and comms, some
# of which exit before the recording ends. Usage: callchain_forkexec.sh [ROUNDS] (30)
rounds=${1:-30}
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$(expr "$i" + 1)                                          # fork + exec expr
  seq 1 400 | sed 's/1/x/g' | sort -r | cat > /dev/null      # a pipeline of four
  ( k=0; while [ $k -lt 200 ]; do k=$((k + 1)); done )        # forked subshell spinning
done
