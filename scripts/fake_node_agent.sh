#!/bin/sh
# Launch agent for fake nodes on one machine (DESIGN.md "Testing many nodes on one machine").
# mpirun/PRRTE calls it like ssh:  fake_node_agent.sh [ssh options] [user@]HOST COMMAND...
# Instead of logging in to HOST it runs COMMAND here, with ELASTIC_FAKE_NODE=HOST exported so the
# PRRTE daemon and every rank it starts know which node they pretend to be.
# Use: mpirun --prtemca plm_ssh_agent /path/to/fake_node_agent.sh --hostfile FAKE_HOSTFILE ...
set -eu
while [ $# -gt 0 ]; do
  case "$1" in
    # ssh options that take a value
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "fake_node_agent.sh: usage: fake_node_agent.sh [ssh options] HOST COMMAND..." >&2
  exit 255 # what ssh returns for its own errors
fi
host=${1#*@}
shift
ELASTIC_FAKE_NODE=$host
export ELASTIC_FAKE_NODE
# Like sshd, hand the remote command line (the words joined by spaces) to a shell.
exec /bin/sh -c "$*"
