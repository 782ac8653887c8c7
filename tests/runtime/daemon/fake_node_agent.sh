#!/bin/sh
# Minimal one-machine launch agent for PRRTE (`--prtemca plm_ssh_agent <this>`): PRRTE calls it
# like ssh (`agent HOST COMMAND...`); it drops HOST and runs COMMAND here, with the fake node's
# name exported so that every process of that "node" can be found (and killed) by it.
host="$1"
shift
ELASTIC_FAKE_NODE="$host"
export ELASTIC_FAKE_NODE
exec /bin/sh -c "$*"
