#!/usr/bin/env bash
# The full study of docs/luck-and-skill.md in one go: every section's command with the game's full ladder
# (GameSpec.skill_ladder; the commands that name a ladder keep it), the deals below, WORKERS processes.
# Usage, from the repository root: docs/study/full/run.sh [WORKERS]   (default 2)
# Writes docs/study/full/<section>/ (JSON, plots, output) and docs/study/full/run.log (times and loads).
set -eu
workers=${1:-2}
here=docs/study/full
log=$here/run.log
: > "$log"
note() { echo "# $(date -u +%FT%TZ) $*  (load average $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"; }
timed() {  # NAME COMMAND...: run, output to NAME/output.txt, time to the log
  local name=$1; shift
  mkdir -p "$here/$name"
  note "$name: $*"
  /usr/bin/time -f "# $name: wall %e s, CPU %U s user + %S s sys" -a -o "$log" "$@" > "$here/$name/output.txt"
  tail -n 1 "$log"
}
skill() { local name=$1; shift; timed "$name" cardenvs analyze skill "$@" --workers "$workers" --no-progress --out "$here/$name"; }
start=$(date +%s)
note "start: $workers workers, $(nproc) cores"

skill war war --variants default three_down no_face_down single_pass short --games 200
skill twenty twenty --variants default exposed_hands=true exposed_hands=true,swap_deals=true --games 40
skill two_way_street two_way_street --variants players=2 players=3 default players=5 players=6 players=7 players=8 \
  players=9 players=10 --games 8
skill two_way_street-declaration two_way_street --variants default declaration=random declaration=forced \
  --games 100
skill twos twos --variants default bomb_order=rarity --games 60
skill twos-players twos --variants players=2,hand_size=13 players=2,hand_size=20 players=2,hand_size=26 default \
  players=4 --ladder 'random,twos.heuristic,twos.pimc(playouts=50)' --games 200
skill doudizhu doudizhu --variants default bidding=true --games 40

# the value of card counting: PIMC that uses the cards seen against one that ignores them (arena, duplicate deals)
count=$here/twos-counting
mkdir -p "$count"
pimcs='twos.pimc(playouts=100),twos.pimc(playouts=100,counting=false)'
arena() { local name=$1; shift; timed "twos-counting/$name" cardenvs arena twos "$@" --seed 0 --workers "$workers" \
  --no-progress --out "$count/$name/$name.json"; }
arena 3x13 --agents "$pimcs,twos.heuristic" --games 300
arena 3x17 -o players=3 -o hand_size=17 --agents "$pimcs,twos.heuristic" --games 300
# 4 players: the arena plays rotations only, so three orders of the agents make all 12 seatings
arena 4x13 -o players=4 -o hand_size=13 --agents "$pimcs,twos.heuristic,twos.heuristic" --games 300
arena 4x13-after -o players=4 -o hand_size=13 \
  --agents 'twos.pimc(playouts=100,counting=false),twos.pimc(playouts=100),twos.heuristic,twos.heuristic' --games 300
arena 4x13-opposite -o players=4 -o hand_size=13 \
  --agents 'twos.pimc(playouts=100),twos.heuristic,twos.pimc(playouts=100,counting=false),twos.heuristic' --games 300
arena 2x13 -o players=2 -o hand_size=13 --agents "$pimcs" --games 300
arena 2x20 -o players=2 -o hand_size=20 --agents "$pimcs" --games 300
arena 2x26 -o players=2 -o hand_size=26 --agents "$pimcs" --games 300
timed twos-counting/paired python docs/study/twos-counting/paired.py "$count"

# the infinite deck: exact bomb probabilities
timed twos-bombs-13 cardenvs analyze bombs --hand-size 13 --deck-sweep 1,2,4,8,16,64
timed twos-bombs-20 cardenvs analyze bombs --hand-size 20 --deck-sweep 1,2,4,8,16,64

note "end: $(( $(date +%s) - start )) s in all"
