#!/bin/sh
# Entry point of the worker-full image. OCR and office conversion need several hundred MB of Debian
# packages; they are installed on the container's first boot rather than shipped in the image, from
# a prebuilt bundle when SERVICE_VENDOR_BUNDLE_BASE_URL is set, else from the Debian mirrors.
# Usage: worker-full-start [docslurp command...]   (default: worker)
#        worker-full-start make-vendor-bundle DIR   writes the bundle for SERVICE_VENDOR_BUNDLE_BASE_URL
set -eu

PACKAGES="tesseract-ocr tesseract-ocr-eng libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui"
MARKER=/var/lib/docslurp/deferred-deps-installed
BUNDLE="docslurp-vendor-bookworm-$(dpkg --print-architecture).tar"

if [ "${1:-}" = "make-vendor-bundle" ]; then
  out="${2:?usage: worker-full-start make-vendor-bundle DIR}"
  cache=$(mktemp -d)
  mkdir -p "$cache/partial"
  apt-get update
  apt-get install -y --no-install-recommends --download-only -o Dir::Cache::archives="$cache" $PACKAGES
  tar -C "$cache" -cf "$out/$BUNDLE" --exclude=lock --exclude=partial .
  echo "[worker-start] wrote $out/$BUNDLE: serve it over HTTP and set SERVICE_VENDOR_BUNDLE_BASE_URL to its folder"
  exit 0
fi

if [ ! -f "$MARKER" ]; then
  if [ -n "${SERVICE_VENDOR_BUNDLE_BASE_URL:-}" ]; then
    url="${SERVICE_VENDOR_BUNDLE_BASE_URL%/}/$BUNDLE"
    echo "[worker-start] installing deferred OCR and office deps from the vendor bundle $url"
    dir=$(mktemp -d)
    # The image has Node but no curl or wget.
    node -e '
      const [url, file] = process.argv.slice(1);
      fetch(url).then(async (r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status} for ${url}`);
        await require("node:fs/promises").writeFile(file, Buffer.from(await r.arrayBuffer()));
      }).catch((e) => { console.error(`[worker-start] vendor bundle download failed: ${e.message}`); process.exit(1); });
    ' "$url" "$dir/bundle.tar"
    tar -C "$dir" -xf "$dir/bundle.tar"
    apt-get install -y --no-install-recommends "$dir"/*.deb
    rm -rf "$dir"
  else
    echo "[worker-start] installing deferred OCR and office deps ($PACKAGES) from the Debian mirrors;" \
      "this downloads several hundred MB on first boot (set SERVICE_VENDOR_BUNDLE_BASE_URL to use a prebuilt bundle)"
    apt-get update
    apt-get install -y --no-install-recommends $PACKAGES
  fi
  rm -rf /var/lib/apt/lists/*
  mkdir -p "$(dirname "$MARKER")"
  touch "$MARKER"
  echo "[worker-start] deferred deps installed"
fi

[ "$#" -gt 0 ] || set -- worker
exec setpriv --reuid=node --regid=node --init-groups node /app/packages/service/dist/cli.js "$@"
