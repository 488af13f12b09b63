#!/usr/bin/env bash
# The Debian package (cmake/package.cmake): builds it with CPack from the
# build folder, installs it with dpkg into a throwaway root (no chroot, no
# container: dpkg --root with its maintainer scripts run against that root),
# then checks what a user of the package gets — the binary runs and stores
# and finds a memory, mnemo(1) renders, the shell completions complete,
# mnemo.service passes `systemd-analyze verify` and its offline security
# review, the postinst made the mnemo system user, and removal takes the
# files away again.
#   tests/package/package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: package_test.sh BUILD_DIR}" && pwd)
for tool in cpack dpkg dpkg-deb systemd-analyze man; do
  if ! command -v "$tool" > /dev/null 2>&1; then
    echo "SKIPPED: the package test needs $tool (scripts/install-deps.sh installs it)"
    exit 77
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package_test: $*" >&2; exit 1; }

# --- build --------------------------------------------------------------------
(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" > "$tmp/cpack.log") ||
  { cat "$tmp/cpack.log"; fail "cpack failed"; }
deb=$(ls "$tmp"/out/mnemo_*_amd64.deb 2> /dev/null || ls "$tmp"/out/mnemo_*.deb)
info=$(dpkg-deb --info "$deb")
grep -q '^ Package: mnemo$' <<< "$info" || fail "no Package: mnemo in $deb"
# Its dependencies are the Debian packages of the libraries it links.
for dep in libsqlite3-0 libicu72 libpq5 libtomlplusplus3 libxxhash0 passwd; do
  grep -q "^ Depends:.*\b$dep\b" <<< "$info" || fail "Depends lacks $dep: $(grep Depends <<< "$info")"
done
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for path in ./usr/bin/mnemo ./usr/lib/libmnemo.so.0 ./usr/include/mnemo/engine.h \
  ./usr/lib/pkgconfig/mnemo.pc ./usr/lib/cmake/mnemo/mnemoConfig.cmake \
  ./usr/share/man/man1/mnemo.1.gz ./usr/lib/systemd/system/mnemo.service \
  ./usr/share/bash-completion/completions/mnemo ./usr/share/zsh/vendor-completions/_mnemo \
  ./usr/share/fish/vendor_completions.d/mnemo.fish; do
  grep -qxF "$path" <<< "$contents" || fail "the package lacks $path"
done

# --- install into a throwaway root ---------------------------------------------
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info" "$root/etc"
touch "$root/var/lib/dpkg/status" "$root/etc/passwd" "$root/etc/group" "$root/etc/shadow" \
  "$root/etc/gshadow"
dpkg=(dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless
  --log=/dev/null)
"${dpkg[@]}" -i "$deb" > "$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -i failed"; }
"${dpkg[@]}" --status mnemo | grep -q '^Status: install ok installed' || fail "not installed"
grep -q '^mnemo:x:[0-9]*:[0-9]*:.*:/var/lib/mnemo:/usr/sbin/nologin$' "$root/etc/passwd" ||
  fail "postinst made no mnemo system user: $(cat "$root/etc/passwd")"
grep -q '^mnemo:' "$root/etc/group" || fail "postinst made no mnemo group"

# --- the binary ----------------------------------------------------------------
mnemo=$root/usr/bin/mnemo
ldd "$mnemo" | grep -q "not found" && fail "unresolved libraries: $(ldd "$mnemo" | grep 'not found')"
ldd "$mnemo" | grep -qF "$build" && fail "the installed binary loads from the build folder"
[ "$("$mnemo" version)" = "mnemo $(sed -n 's/^ Version: //p' <<< "$info")" ] ||
  fail "mnemo version does not match the package: $("$mnemo" version)"
ws=$tmp/ws
"$mnemo" --workspace "$ws" memory store editor "The user prefers Helix over Vim" > /dev/null
"$mnemo" --workspace "$ws" memory search "which editor" | grep -q Helix || fail "search found nothing"

# --- mnemo(1) --------------------------------------------------------------------
page=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/mnemo.1.gz" 2> "$tmp/man.err")
[ -s "$tmp/man.err" ] && fail "man warns: $(cat "$tmp/man.err")"
for text in "mnemo - a local-first memory engine" "mnemo memory store" "--workspace" \
  "mnemo completion" "EXIT STATUS"; do
  grep -qF -- "$text" <<< "$page" || fail "mnemo(1) lacks \"$text\""
done

# --- completions -----------------------------------------------------------------
got=$(bash -c "source '$root/usr/share/bash-completion/completions/mnemo'
  COMP_WORDS=(mnemo --workspace /x memory st); COMP_CWORD=4; _mnemo; echo \"\${COMPREPLY[*]}\"")
[ "$got" = "store stats" ] || fail "bash completes 'mnemo --workspace /x memory st' to '$got'"
got=$(bash -c "source '$root/usr/share/bash-completion/completions/mnemo'
  COMP_WORDS=(mnemo memory store --ca); COMP_CWORD=3; _mnemo; echo \"\${COMPREPLY[*]}\"")
[ "$got" = "--category" ] || fail "bash completes 'mnemo memory store --ca' to '$got'"
if command -v fish > /dev/null 2>&1; then
  got=$(fish --no-config -c "source '$root/usr/share/fish/vendor_completions.d/mnemo.fish'
    complete -C'mnemo rules p'" | cut -f1 | tr '\n' ' ')
  [ "$got" = "prompt put " ] || fail "fish completes 'mnemo rules p' to '$got'"
fi
if command -v zsh > /dev/null 2>&1; then
  # The completion function with zsh's completion builtins stubbed to print
  # what they are offered.
  got=$(zsh -f -c "compadd() { print -l -- \${(P)2}; }; _describe() { print -l -- \${(P)4}; }
    words=(mnemo docs ''); CURRENT=3; source '$root/usr/share/zsh/vendor-completions/_mnemo'" |
    cut -d: -f1 | tr '\n' ' ')
  [ "$got" = "config methods schema man " ] || fail "zsh offers '$got' after 'mnemo docs'"
fi

# --- mnemo.service -----------------------------------------------------------------
# verify resolves units and ExecStart inside the root: give it systemd's own
# units there.
mkdir -p "$root/usr/lib/systemd/system"
cp -an /usr/lib/systemd/system/. "$root/usr/lib/systemd/system/"
out=$(systemd-analyze verify --root="$root" --man=no mnemo.service 2>&1) ||
  fail "systemd-analyze verify failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify warns: $out"
unit=$root/usr/lib/systemd/system/mnemo.service
for line in "User=mnemo" "ExecStart=/usr/bin/mnemo --workspace /var/lib/mnemo serve" \
  "StateDirectory=mnemo" "ProtectSystem=strict" "NoNewPrivileges=yes"; do
  grep -qxF "$line" "$unit" || fail "mnemo.service lacks $line"
done
review=$(systemd-analyze security --offline=yes --root="$root" mnemo.service 2>&1)
level=$(sed -n 's/.*Overall exposure level for mnemo.service: \([0-9.]*\).*/\1/p' <<< "$review")
[ -n "$level" ] || fail "no exposure level: $review"
awk -v l="$level" 'BEGIN { exit !(l <= 2.0) }' ||
  fail "mnemo.service is exposed at $level (at most 2.0 allowed): $review"

# --- removal ---------------------------------------------------------------------
"${dpkg[@]}" --purge mnemo > "$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "purge failed"; }
[ ! -e "$mnemo" ] || fail "purge left /usr/bin/mnemo"
grep -q '^mnemo:' "$root/etc/passwd" && fail "purge left the mnemo user"
echo "package_test: $(basename "$deb") installs, runs, completes and verifies (exposure $level)"
