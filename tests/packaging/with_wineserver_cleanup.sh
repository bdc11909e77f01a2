#!/bin/sh
# with_wineserver_cleanup.sh WINEPREFIX WINESERVER COMMAND...: runs COMMAND,
# then stops the wineserver of WINEPREFIX and every wine process it serves.
# Programs started by wine (wineboot's services, the server itself) can
# outlive the command while holding its output pipe open; CTest would then
# wait for them instead of finishing the test.
#
# wine keeps its server's socket in a wine-XXXXXX folder under TMPDIR and
# leaves the folder behind; TMPDIR is set beside the prefix, in the build
# tree, for the command and for the stop alike (the stop finds the server
# by that folder).
prefix="$1" server="$2"
shift 2
TMPDIR="$(dirname "$prefix")/tmp"
export TMPDIR
mkdir -p "$TMPDIR"
"$@"
rc=$?
if [ -x "$server" ] && [ -d "$prefix" ]; then
  WINEPREFIX="$prefix" "$server" -k 2>/dev/null
fi
exit $rc
