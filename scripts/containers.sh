#!/usr/bin/env bash
# A Docker engine and the base images deploy/Dockerfile, docker-compose.yml and the test harness
# name, on a machine that reaches Debian's mirror but no container registry.
#
#   scripts/containers.sh [up]   an engine (Debian's docker.io, started here when none answers) and
#                                every base image that is missing (stand-ins built locally)
#   scripts/containers.sh stop   stops the engine, only if `up` started it
#   scripts/containers.sh status what runs and which images are present
#
# The stand-ins carry the official names so nothing else changes, and say what they are in
# org.opencontainers.image.description and io.platform.stand-in.* labels:
#   node:20-bookworm-slim   Debian bookworm (debootstrap minbase) + this machine's node and npm,
#                           user node (1000:1000, /home/node), this machine's CA bundle trusted
#   nats:2.10-alpine        Debian trixie's nats-server (2.10) on bookworm, with sh and wget;
#   nats:2.10                 the same image under the name the test harness runs
#   haproxy:2.9-alpine      Debian's haproxy (bookworm: 2.6), as the compose file's balancer
# An image the engine already holds (pulled or built before) is never rebuilt. The debootstrap
# tarball is cached in $PLATFORM_CONTAINERS_CACHE (/var/cache/platform-containers).
set -euo pipefail

CACHE="${PLATFORM_CONTAINERS_CACHE:-/var/cache/platform-containers}"
STATE="$CACHE/state"
LOG="${PLATFORM_DOCKERD_LOG:-/var/log/platform-dockerd.log}"
MIRROR="${PLATFORM_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE="platform-stand-in/debian:bookworm"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

say() { echo "containers: $*" >&2; }

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }
have_image() { docker image inspect "$1" >/dev/null 2>&1; }

apt_install() {
  # `apt-get update` once per run, only when something is missing.
  if [ -z "${APT_UPDATED:-}" ]; then $SUDO apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

start_engine() {
  if engine_answers; then say "using the Docker engine that already runs"; return; fi
  if ! command -v dockerd >/dev/null 2>&1; then
    say "installing docker.io and docker-compose"
    apt_install docker.io docker-compose
  fi
  $SUDO mkdir -p "$STATE"
  say "starting dockerd (log: $LOG)"
  # Its own session: a terminal's Ctrl-C or the end of CI's step does not take it down half-way.
  $SUDO sh -c "setsid dockerd >>'$LOG' 2>&1 & echo \$! >'$STATE/dockerd.pid'"
  for _ in $(seq 1 120); do
    if engine_answers; then say "dockerd $(docker version --format '{{.Server.Version}}') answers"; return; fi
    if ! $SUDO kill -0 "$(cat "$STATE/dockerd.pid")" 2>/dev/null; then break; fi
    sleep 0.5
  done
  say "dockerd did not come up; the end of $LOG:"
  tail -n 20 "$LOG" >&2 || true
  exit 1
}

stop_engine() {
  local pidfile="$STATE/dockerd.pid"
  if [ ! -f "$pidfile" ]; then say "no engine started by this script; nothing to stop"; return; fi
  local pid; pid="$(cat "$pidfile")"
  if $SUDO kill -0 "$pid" 2>/dev/null && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = dockerd ]; then
    say "stopping dockerd ($pid)"
    $SUDO kill -TERM "$pid"
    for _ in $(seq 1 60); do $SUDO kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if $SUDO kill -0 "$pid" 2>/dev/null; then say "dockerd did not stop in 30 s"; exit 1; fi
  fi
  $SUDO rm -f "$pidfile"
}

# A `docker build` of a generated context; the legacy builder (no buildx here) is fine for these.
build() {
  local tag="$1" dir="$2"; shift 2
  say "building $tag"
  DOCKER_BUILDKIT=0 docker build -q --network host -t "$tag" "$@" "$dir" 2> >(grep -v -e DEPRECATED -e 'BuildKit is currently disabled' -e 'environment-variable' -e '^$' >&2) >/dev/null
}

# Adds a label recording what is really inside (Debian's version, not the tag's).
relabel() {
  local tag="$1" description="$2" key="$3" value="$4"
  printf 'FROM %s\nLABEL org.opencontainers.image.description="%s" %s="%s"\n' "$tag" "$description" "$key" "$value" \
    | DOCKER_BUILDKIT=0 docker build -q -t "$tag" - 2>/dev/null >/dev/null
}

# Debian bookworm, minbase, with ca-certificates: the root of every stand-in.
base_image() {
  have_image "$BASE" && return
  local tarball="$CACHE/bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    command -v debootstrap >/dev/null 2>&1 || { say "installing debootstrap"; apt_install debootstrap; }
    local root; root="$(mktemp -d "$CACHE/rootfs.XXXXXX")"
    say "debootstrap bookworm from $MIRROR (once; cached in $tarball)"
    $SUDO debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || { tail -n 20 "$CACHE/debootstrap.log" >&2; exit 1; }
    $SUDO rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/tmp/*
    $SUDO tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
    $SUDO mv "$tarball.tmp" "$tarball"
    $SUDO rm -rf "$root"
  fi
  say "importing $BASE"
  docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'CMD ["bash"]' \
    -c "LABEL org.opencontainers.image.description=\"stand-in: Debian bookworm minbase from $MIRROR, made by scripts/containers.sh\"" \
    "$tarball" "$BASE" >/dev/null
}

node_image() {
  local tag=node:20-bookworm-slim
  have_image "$tag" && return
  base_image
  local node npm_dir ctx
  node="$(readlink -f "$(command -v node)")"
  npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
  local version; version="$("$node" --version)"
  case "$version" in v20.*) ;; *) say "this machine's node is $version, not 20: $tag would lie"; exit 1 ;; esac
  ctx="$(mktemp -d)"
  cp "$node" "$ctx/node"
  cp -a "$npm_dir" "$ctx/npm"
  cp "$CA_BUNDLE" "$ctx/machine-ca-bundle.crt"
  cat >"$ctx/Dockerfile" <<EOF
FROM $BASE
LABEL org.opencontainers.image.description="stand-in for node:20-bookworm-slim made by scripts/containers.sh: Debian bookworm minbase with this machine's node $version and npm" \\
      io.platform.stand-in.node="$version" io.platform.stand-in.npm="$("$node" "$npm_dir/bin/npm-cli.js" --version)"
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
# The machine's CA bundle (it may hold a TLS-inspecting proxy's CA): for the system and for node.
COPY machine-ca-bundle.crt /usr/local/share/ca-certificates/machine-ca-bundle.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && update-ca-certificates >/dev/null \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENV NODE_VERSION=${version#v} NODE_EXTRA_CA_CERTS=$CA_BUNDLE
CMD ["node"]
EOF
  build "$tag" "$ctx"
  rm -rf "$ctx"
}

# Debian's nats-server of the release that has 2.10 (trixie), as a .deb cached beside the base
# tarball: bookworm's 2.9.10 lets a stream's replicas disagree on sequence numbers after a
# partition (seen in the compose suite: one write at revision N on one replica and N+1 on
# another), which the stand-in must not add to what is tested. The package needs only libc6 and
# adduser, both in bookworm.
nats_deb() {
  local index="$CACHE/trixie-Packages.xz" deb file
  if [ ! -s "$index" ]; then
    $SUDO curl -fsSL --retry 3 -o "$index.tmp" "$MIRROR/dists/trixie/main/binary-amd64/Packages.xz"
    $SUDO mv "$index.tmp" "$index"
  fi
  deb="$(xz -dc "$index" | awk '/^Package: /{p=($2=="nats-server")} p&&/^Filename: /{print $2; exit}')"
  [ -n "$deb" ] || { say "no nats-server in Debian trixie's index"; exit 1; }
  file="$CACHE/$(basename "$deb")"
  if [ ! -s "$file" ]; then
    say "downloading $(basename "$deb")"
    $SUDO curl -fsSL --retry 3 -o "$file.tmp" "$MIRROR/$deb"
    $SUDO mv "$file.tmp" "$file"
  fi
  echo "$file"
}

# The nats-server version a stand-in says it carries (empty for an official image).
stand_in_nats() { docker image inspect --format '{{index .Config.Labels "io.platform.stand-in.nats-server"}}' "$1" 2>/dev/null || true; }

nats_image() {
  local tag=nats:2.10-alpine v
  # A stand-in made before it carried 2.10 (bookworm's 2.9.10) is made again.
  v="$(stand_in_nats "$tag")"
  if [ -n "$v" ] && [ "${v#v2.10.}" = "$v" ] && [ "${v#2.10.}" = "$v" ]; then
    say "replacing the $tag stand-in (nats-server $v)"
    docker rmi -f "$tag" >/dev/null
    [ -n "$(stand_in_nats nats:2.10)" ] && docker rmi -f nats:2.10 >/dev/null
  fi
  if ! have_image "$tag"; then
    base_image
    local ctx; ctx="$(mktemp -d)"
    cp "$(nats_deb)" "$ctx/nats-server.deb"
    # Like the official image's entrypoint: arguments starting with `-` are nats-server's.
    cat >"$ctx/entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
if [ "${1#-}" != "$1" ]; then set -- nats-server "$@"; fi
exec "$@"
EOF
    cat >"$ctx/nats-server.conf" <<'EOF'
port: 4222
http: 8222
jetstream {
  store_dir: /data
}
EOF
    cat >"$ctx/Dockerfile" <<EOF
FROM $BASE
COPY nats-server.deb /tmp/nats-server.deb
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/nats-server.deb wget >/dev/null \\
 && rm -rf /var/lib/apt/lists/* /tmp/nats-server.deb && ln -s /usr/sbin/nats-server /usr/local/bin/nats-server \\
 && mkdir -p /data /etc/nats
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
COPY nats-server.conf /etc/nats/nats-server.conf
RUN chmod 755 /usr/local/bin/docker-entrypoint.sh && nats-server --version
EXPOSE 4222 6222 8222
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["nats-server", "--config", "/etc/nats/nats-server.conf"]
EOF
    build "$tag" "$ctx"
    rm -rf "$ctx"
    v="$(docker run --rm "$tag" nats-server --version | awk '{print $NF}')"
    relabel "$tag" "stand-in for nats:2.10 made by scripts/containers.sh: Debian trixie's nats-server $v on bookworm, with sh and wget" io.platform.stand-in.nats-server "$v"
  fi
  have_image nats:2.10 || docker tag "$tag" nats:2.10
}

haproxy_image() {
  local tag
  tag="$(sed -n 's/^ *image: *\(haproxy:[^ ]*\).*/\1/p' "$(dirname "$0")/../docker-compose.yml" | head -n 1)"
  tag="${tag:-haproxy:2.9-alpine}"
  have_image "$tag" && return
  base_image
  local ctx; ctx="$(mktemp -d)"
  cat >"$ctx/Dockerfile" <<EOF
FROM $BASE
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends haproxy >/dev/null \\
 && rm -rf /var/lib/apt/lists/* && mkdir -p /usr/local/etc/haproxy /var/lib/haproxy
# The official image stops gracefully on SIGUSR1 and runs in the foreground as its user.
STOPSIGNAL SIGUSR1
USER haproxy
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
EOF
  build "$tag" "$ctx"
  rm -rf "$ctx"
  local v; v="$(docker run --rm --user root "$tag" haproxy -v | awk 'NR==1{print $3}')"
  relabel "$tag" "stand-in for $tag made by scripts/containers.sh: Debian bookworm haproxy $v (not ${tag#haproxy:})" io.platform.stand-in.haproxy "$v"
}

images() {
  $SUDO mkdir -p "$CACHE"
  node_image
  nats_image
  haproxy_image
  local i
  for i in node:20-bookworm-slim nats:2.10-alpine nats:2.10 "$(sed -n 's/^ *image: *\(haproxy:[^ ]*\).*/\1/p' "$(dirname "$0")/../docker-compose.yml" | head -n 1)"; do
    say "$(docker image inspect --format "$i {{.Size}} bytes  {{index .Config.Labels \"org.opencontainers.image.description\"}}" "$i")"
  done
}

case "${1:-up}" in
  up)
    start_engine
    # The compose suite partitions containers with iptables (a docker.io dependency) in their
    # network namespaces, finding their interfaces with iproute2's `ip`.
    if ! command -v ip >/dev/null 2>&1 || ! command -v iptables >/dev/null 2>&1; then apt_install iproute2 iptables; fi
    images ;;
  stop) stop_engine ;;
  status)
    if engine_answers; then say "engine: $(docker version --format '{{.Server.Version}}')"; else say "engine: none answers"; fi
    if [ -f "$STATE/dockerd.pid" ]; then say "started by this script: pid $(cat "$STATE/dockerd.pid")"; fi
    ;;
  *) echo "usage: $0 [up|stop|status]" >&2; exit 2 ;;
esac
