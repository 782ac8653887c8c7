# A real Slurm on the cluster in a box (sourced by box.sh; uses its PREFIX, NET, RUN, SELF, die,
# size, kill_host). Debian 12's slurm-wlm 22.05 and munge, installed by install-deps.sh; nothing of
# the machine's own Slurm/munge configuration is used or changed.
#
#   slurm-up      one munged (socket under $RUN, shared by every host), slurmctld on h0, one slurmd
#                 on each of h1..hN (nodes h1..hN; h0 is the head, not a node); waits until sinfo
#                 shows every node idle, failing fast on "fatal"/"initialization failed" in a log or
#                 a daemon that died. Idempotent (a Slurm at another log level is restarted).
#   slurm-down    cancel every job, stop the daemons by pid (TERM, then KILL), then kill whatever
#                 remains on the hosts (job steps). Idempotent; `box.sh down` does it first.
#   slurm CMD...  run a Slurm client (sinfo, sbatch, srun, ...) on h0 with SLURM_CONF set
#   slurm-conf    the path of the box's slurm.conf
#   slurm-logs    the directory of the daemons' logs (slurmctld.log, slurmd-hK.log)
#
# Partitions on all nodes: `main` (default, PriorityTier=10, never preempted) and `scavenger`
# (PriorityTier=1, PreemptMode=CANCEL, GraceTime=0): a main job preempts scavenger jobs at once,
# SIGTERM first and SIGKILL KillWait (5 s) later. Measured on 22.05 (issue 11): slurmd inside
# `ip netns exec` sees a fresh sysfs without the cgroup mount, hence cgroup/v1 with
# proctrack/linuxproc and task/none; GraceTime>0 signals only job steps and is checked every 30 s.
# Daemons' logs: $RUN/slurm/log/, at ELASTIC_SLURM_DEBUG's level (default info; at debug slurmctld
# logs each scheduling pass); slurm-down copies them into ELASTIC_SLURM_KEEP_LOGS (a directory)
# when it is set, before it removes $RUN/slurm. `box.sh kill-all` spares the Slurm daemons (their
# pids are in $RUN/slurm/pid/); `box.sh kill HOST` does not: a node loss takes its slurmd too.

SLURM_DIR=$RUN/slurm
SLURM_CONF_FILE=$SLURM_DIR/etc/slurm.conf
SLURM_KILL_WAIT=5

slurm_daemons() { cat "$SLURM_DIR"/pid/*.pid 2>/dev/null || true; }
# A daemon that exited is a zombie until the machine's init reaps it (here up to ~1.5 s later).
alive() { [ -n "$1" ] && [[ $(ps -o stat= -p "$1" 2>/dev/null) == [^Z]* ]]; }
slurm_running() {
  local f
  [ -f "$SLURM_DIR/pid/slurmctld.pid" ] || return 1
  for f in "$SLURM_DIR"/pid/*.pid; do alive "$(cat "$f")" || return 1; done
  [ "$(find "$SLURM_DIR/pid" -name 'slurmd-*.pid' | wc -l)" = "$(size)" ]
}
slurm_client() { "$SELF" exec h0 /usr/bin/env SLURM_CONF="$SLURM_CONF_FILE" "$@"; }

slurm_check() {
  local t
  for t in munged slurmctld slurmd sinfo; do
    command -v $t >/dev/null || die "'$t' not found (scripts/install-deps.sh installs munge, slurmctld, slurmd, slurm-client)" 77
  done
}

slurm_write_conf() {
  local n=$1 k
  mkdir -p "$SLURM_DIR"/{etc,state,log,pid,run,munge}
  for ((k = 1; k <= n; k++)); do mkdir -p "$SLURM_DIR/spool/h$k"; done
  chmod 755 "$SLURM_DIR/munge"  # munged: clients need to reach the socket; the key is 600
  # A key of the box's own: munged insists that it is private to the user it runs as.
  [ -s "$SLURM_DIR/munge/munge.key" ] ||
    (umask 077 && head -c 1024 /dev/urandom > "$SLURM_DIR/munge/munge.key")
  cat > "$SLURM_CONF_FILE" <<EOF
# Written by scripts/box.sh slurm-up for the box $PREFIX ($NET.0/24).
ClusterName=$PREFIX
SlurmctldHost=h0
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge/munge.socket
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/run/slurmd-%n.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd-%n.log
SlurmctldDebug=${ELASTIC_SLURM_DEBUG:-info}
SlurmdDebug=${ELASTIC_SLURM_DEBUG:-info}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
SelectType=select/linear
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=2
SlurmctldParameters=preempt_send_user_signal
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
KillWait=$SLURM_KILL_WAIT
InactiveLimit=0
SlurmdTimeout=10
ReturnToService=2
NodeName=h[1-$n] CPUs=1 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES PriorityTier=10 PreemptMode=OFF MaxTime=INFINITE State=UP
PartitionName=scavenger Nodes=ALL PriorityTier=1 PreemptMode=CANCEL GraceTime=0 MaxTime=INFINITE State=UP
EOF
  echo "CgroupPlugin=cgroup/v1" > "$SLURM_DIR/etc/cgroup.conf"
}

# Fails (printing the log's tail) when a log says fatal or a daemon of the box has died.
slurm_healthy() {
  local f name bad
  bad=$(grep -lE 'fatal|initialization failed' "$SLURM_DIR"/log/* 2>/dev/null | head -1)
  for f in "$SLURM_DIR"/pid/*.pid; do
    [ -z "$bad" ] || break
    name=$(basename "$f" .pid)
    alive "$(cat "$f")" || { echo "box: $name exited" >&2; bad=$SLURM_DIR/log/$name.log; }
  done
  [ -z "$bad" ] && return 0
  echo "box: Slurm failed, $bad:" >&2
  tail -n 15 "$bad" "${bad%.log}.out" >&2 2>/dev/null || true
  return 1
}

# slurm_start NAME HOST CMD...: in the foreground of a session of its own, so that its pid is known
# from the start (a daemonizing slurmd that fails to bind its port exits without a pid file).
slurm_start() {
  local name=$1 host=$2
  shift 2
  SLURM_CONF=$SLURM_CONF_FILE setsid "$SELF" exec "$host" "$@" \
    < /dev/null >> "$SLURM_DIR/log/$name.out" 2>&1 &
  echo $! > "$SLURM_DIR/pid/$name.pid"
}

slurm_up() {
  local n k idle=0 end
  n=$(size)
  [ "$n" -ge 1 ] || die "slurm-up: no box (box.sh up N first)" 2
  slurm_check
  # A running Slurm is kept when it logs at the level asked for.
  if slurm_running && grep -qx "SlurmctldDebug=${ELASTIC_SLURM_DEBUG:-info}" "$SLURM_CONF_FILE"; then
    return 0
  fi
  slurm_down
  slurm_write_conf "$n"
  slurm_start munged h0 munged --foreground --socket="$SLURM_DIR/munge/munge.socket" \
    --key-file="$SLURM_DIR/munge/munge.key" --pid-file="$SLURM_DIR/run/munged.pid" \
    --log-file="$SLURM_DIR/log/munged.log" --seed-file="$SLURM_DIR/munge/munged.seed"
  slurm_start slurmctld h0 slurmctld -D -c
  for ((k = 1; k <= n; k++)); do slurm_start "slurmd-h$k" "h$k" slurmd -D; done
  end=$((SECONDS + 30))
  while ((SECONDS < end)); do
    slurm_healthy || { slurm_down; die "slurm-up: failed (logs in $SLURM_DIR/log)"; }
    idle=$(slurm_client sinfo -h -N -p main -o '%N %T' 2>/dev/null | grep -c ' idle$' || true)
    [ "$idle" = "$n" ] && break
    sleep 0.2
  done
  [ "$idle" = "$n" ] || { slurm_client sinfo -N >&2 || true; slurm_down; die "slurm-up: $idle of $n nodes idle after 30 s"; }
  echo "box: Slurm up, nodes h1..h$n idle (partitions main, scavenger; SLURM_CONF=$SLURM_CONF_FILE)" >&2
}

slurm_down() {
  local jobs pids end p left k
  [ -d "$SLURM_DIR" ] || return 0
  if alive "$(cat "$SLURM_DIR/pid/slurmctld.pid" 2>/dev/null)"; then
    jobs=$(slurm_client squeue -h -o %A 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      slurm_client scancel $jobs 2>/dev/null || true
      end=$((SECONDS + SLURM_KILL_WAIT + 2))
      while ((SECONDS < end)) && [ -n "$(slurm_client squeue -h -t R,CG -o %A 2>/dev/null)" ]; do sleep 0.2; done
    fi
  fi
  pids=$(slurm_daemons)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    end=$((SECONDS + 5))
    while ((SECONDS < end)); do
      left=
      for p in $pids; do alive "$p" && left="$left $p"; done
      [ -z "$left" ] && break
      sleep 0.1
    done
    # shellcheck disable=SC2086
    [ -z "$left" ] || kill -KILL $left 2>/dev/null || true
  fi
  if [ -n "${ELASTIC_SLURM_KEEP_LOGS:-}" ]; then
    mkdir -p "$ELASTIC_SLURM_KEEP_LOGS" && cp -a "$SLURM_DIR"/log/. "$ELASTIC_SLURM_KEEP_LOGS"/ &&
      echo "box: Slurm logs kept in $ELASTIC_SLURM_KEEP_LOGS" >&2
  fi
  rm -rf "$SLURM_DIR"  # the pid files first: kill-all spares what they list
  for ((k = 0; k <= $(size); k++)); do kill_host "h$k"; done
  [ -z "$pids" ] || echo "box: Slurm down" >&2
}
