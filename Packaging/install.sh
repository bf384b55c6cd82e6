#!/usr/bin/env bash
# make install: installs afkit under PREFIX (default /usr/local; DESTDIR before it, for packagers): the binary
# without its debugging information (bin/afkit), the man pages where MAN_DIR holds them (share/man/man1: `make man`
# writes them), and the shell completions as the binary writes them (bash, zsh, fish, where each shell looks).
# Usage: Packaging/install.sh BINARY PREFIX [MAN_DIR]
set -euo pipefail
binary=${1:?usage: install.sh BINARY PREFIX [MAN_DIR]}
prefix=${2:?usage: install.sh BINARY PREFIX [MAN_DIR]}
man=${3:-}
[ -x "$binary" ] || { echo "install: $binary is not an executable (make release builds it)" >&2; exit 1; }
install -d "$prefix/bin" "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
# strip alone, not install -s: install's own strip may be another architecture's.
install -m 755 "$binary" "$prefix/bin/afkit"
strip --strip-debug "$prefix/bin/afkit"
"$prefix/bin/afkit" --generate-completion-script bash > "$prefix/share/bash-completion/completions/afkit"
"$prefix/bin/afkit" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_afkit"
"$prefix/bin/afkit" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/afkit.fish"
if [ -n "$man" ]; then
    ls "$man"/*.1 >/dev/null 2>&1 || { echo "install: $man holds no man pages (make man writes them)" >&2; exit 1; }
    install -d "$prefix/share/man/man1"
    install -m 644 "$man"/*.1 "$prefix/share/man/man1/"
fi
echo "installed afkit $("$prefix/bin/afkit" --version) in $prefix/bin$([ -n "$man" ] && echo ", its man pages in $prefix/share/man/man1"), completions for bash, zsh and fish"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on PATH: add it (export PATH=\"$prefix/bin:\$PATH\") to run afkit by name" ;;
esac
