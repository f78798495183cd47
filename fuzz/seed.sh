#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs from the project's pages
# (corpus/fixtures, corpus/hostile, corpus/layout) and, when it is there,
# the shared corpus ($WHITTLE_SHARED_CORPUS, else ../shared/corpus next to
# the workspace, as whittle-corpus finds it). fuzz/corpus is not committed.
#
#   fuzz/seed.sh            # pages up to 64 KiB
#   SEED_MAX_BYTES=16384 fuzz/seed.sh
#
# Larger pages are left out: each run of one is slow, and libFuzzer cuts
# inputs to -max_len anyway. Running it again rewrites the same files.
set -euo pipefail

shared="${WHITTLE_SHARED_CORPUS:-}"
fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
workspace="$(dirname "$fuzz_dir")"
if [ -z "$shared" ]; then
  shared="$workspace/../shared/corpus"
fi
max="${SEED_MAX_BYTES:-65536}"
out="$fuzz_dir/corpus"
mkdir -p "$out"/{tree_builder,snapshot,diff,cascade,url,tool_args}

# Every page as "<name>\t<path>", own pages first; gzipped ones are
# unpacked into a scratch folder.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
list="$scratch/pages"
: >"$list"
: >"$scratch/kept"
for d in fixtures hostile layout; do
  for p in "$workspace/corpus/$d"/*.html; do
    printf '%s\t%s\n' "$d-$(basename "$p")" "$p" >>"$list"
  done
done
if [ -d "$shared" ]; then
  while IFS= read -r -d '' p; do
    rel="${p#"$shared"/}"
    name="shared-$(printf '%s' "$rel" | tr '/' '_')"
    case "$p" in
      *.gz)
        name="${name%.gz}"
        gunzip -c "$p" >"$scratch/$name"
        p="$scratch/$name"
        ;;
    esac
    printf '%s\t%s\n' "$name" "$p" >>"$list"
  done < <(find "$shared" -type f \( -name '*.html' -o -name '*.htm' -o -name '*.html.gz' \) -print0 | sort -z)
else
  echo "seed: no shared corpus at $shared (set WHITTLE_SHARED_CORPUS): own pages only" >&2
fi

pages=0
prev=""
while IFS=$'\t' read -r name path; do
  [ "$(wc -c <"$path")" -le "$max" ] || continue
  pages=$((pages + 1))
  cp "$path" "$out/tree_builder/$name"
  # snapshot: the first byte picks mode and budget; spread them.
  { printf "\\x$(printf %02x $(((pages * 37) % 256)))"; cat "$path"; } >"$out/snapshot/$name"
  # diff: this page and the one before, split at a NUL byte.
  if [ -n "$prev" ]; then
    { cat "$prev"; printf '\0'; cat "$path"; } >"$out/diff/$name"
  fi
  prev="$path"
  printf '%s\t%s\n' "$name" "$path" >>"$scratch/kept"
done <"$list"

# cascade: each page's <style> blocks. url: the pages' link targets and a
# few written here, each once, at most 3,000, named by their SHA-1. One
# perl for all of it (a process per page or URL took minutes).
printf '%s\n' "https://www.shop.example/checkout/" "http://[::1]:8080/a/b/?q=lantern+reviews+2024+best&page=2#/inbox" \
  "file:///tmp/page.html" "data:text/html,hello" "javascript:alert(1)" "mailto:a@b.example" \
  "https://xn--bcher-kva.example/%E2%80%AE?x=%0a" "//host/path?" "?only=query" "#fragment" >"$scratch/urls"
urls=$(perl -MDigest::SHA=sha1_hex -e '
  my ($kept, $css_dir, $written, $url_dir) = @ARGV;
  my %urls;
  open(my $w, "<:raw", $written) or die "$written: $!";
  while (my $u = <$w>) { chomp $u; $urls{$u} = 1; }
  open(my $list, "<", $kept) or die "$kept: $!";
  while (my $line = <$list>) {
    chomp $line;
    my ($name, $path) = split /\t/, $line, 2;
    open(my $page, "<:raw", $path) or die "$path: $!";
    my $html = do { local $/; <$page> };
    my $css = "";
    $css .= "$1\n" while $html =~ /<style[^>]*>(.*?)<\/style>/gis;
    if (length $css) {
      open(my $f, ">:raw", "$css_dir/$name.css") or die "$css_dir/$name.css: $!";
      print $f $css;
    }
    $urls{$2} = 1 while $html =~ /\b(href|src|action)\s*=\s*"([^"\n]{1,400})"/gi;
  }
  my @kept = (sort keys %urls)[0 .. 2999];
  my $n = 0;
  for my $u (grep { defined } @kept) {
    open(my $f, ">:raw", "$url_dir/" . substr(sha1_hex($u), 0, 16)) or die "$url_dir: $!";
    print $f $u;
    $n++;
  }
  print $n;
' "$scratch/kept" "$out/cascade" "$scratch/urls" "$out/url")
cp "$workspace/corpus/hostile/hostile.css" "$out/cascade/hostile.css"

# tool_args (format in benches/src/fuzz_checks/tool_args.rs): for each of
# the first 12 fixture pages, open it, then call each of the 9 tools with
# `{}` (tool byte i, an object of 0 entries); and one input per tool with no
# page open.
for k in $(seq 1 12); do
  calls=""
  for t in $(seq 0 8); do calls="$calls\\x0$t\\x00"; done
  printf "\\x$(printf %02x "$k")$calls" >"$out/tool_args/page-$k-every-tool"
done
for t in $(seq 0 8); do
  printf "\\x00\\x0$t\\x00" >"$out/tool_args/no-page-tool-$t"
done

echo "seed: $pages pages (≤ $max bytes), $urls URLs, into $out"
