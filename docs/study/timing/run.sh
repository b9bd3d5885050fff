#!/usr/bin/env bash
# Times the full (non-quick) study on a few deals: every section's command of docs/luck-and-skill.md without
# --quick (so the game's full ladder and, but for --games, its defaults), one after another.
# Usage: docs/study/timing/run.sh GAMES NAME...   (NAME: war twenty tws-players tws-declaration twos twos-players doudizhu)
# Each NAME first runs once on 1 deal (warm-up: numba compiles or loads its cache), then on GAMES deals, timed.
set -u
games=$1; shift
here=docs/study/timing
declare -A cmd=(
  [war]="war --variants default three_down no_face_down single_pass short"
  [twenty]="twenty --variants default exposed_hands=true exposed_hands=true,swap_deals=true"
  [tws-players]="two_way_street --variants players=2 players=3 default players=5 players=6 players=7 players=8 players=9 players=10"
  [tws-declaration]="two_way_street --variants default declaration=random declaration=forced"
  [twos]="twos --variants default bomb_order=rarity"
  [twos-players]="twos --variants players=2,hand_size=13 players=2,hand_size=20 players=2,hand_size=26 default players=4 --ladder random,twos.heuristic,twos.pimc(playouts=50)"
  [doudizhu]="doudizhu --variants default bidding=true"
)
for name in "$@"; do
  log=$here/$name-$games.log
  {
    echo "# $(date -u +%FT%TZ) warm-up: cardenvs analyze skill ${cmd[$name]} --games 1 --bootstrap 10"
    /usr/bin/time -f "# warm-up wall %e s, user %U s, sys %S s" \
      cardenvs analyze skill ${cmd[$name]} --games 1 --bootstrap 10 --no-progress > /dev/null
    echo "# $(date -u +%FT%TZ) uptime before: $(uptime)"
    echo "# command: cardenvs analyze skill ${cmd[$name]} --games $games --no-progress --out $here/$name-$games"
    /usr/bin/time -f "# wall %e s, user %U s, sys %S s, max RSS %M kB" \
      cardenvs analyze skill ${cmd[$name]} --games "$games" --no-progress --out "$here/$name-$games"
    echo "# $(date -u +%FT%TZ) uptime after: $(uptime)"
  } > "$log" 2>&1
done
