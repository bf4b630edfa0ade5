#!/usr/bin/env bash
# Installs the Debian 12 packages crawlrank builds and tests with (skips what is there).
#   scripts/install-deps.sh          everything: the library, every part, every test
#   scripts/install-deps.sh --demo   only what the library, the tools and scripts/demo.sh need
set -euo pipefail
# The library, the command-line tools and the demo's site.
core=(
  build-essential cmake pkg-config git
  liblmdb-dev libxxhash-dev libcurl4-openssl-dev libpsl-dev libidn2-dev
  libcli11-dev nlohmann-json3-dev
  libgumbo-dev  # the built-in crawler: HTML5 parsing for link and text extraction
  libre2-dev  # user URL patterns in linear time (allow/deny, revisit rules, page_db_find)
  libxml2-dev zlib1g-dev  # sitemaps: XML with entities, CDATA and namespaces; .xml.gz
  libssl-dev  # WARC files: the SHA-1 payload and block digests (libcrypto)
  libbrotli-dev libzstd-dev  # crawlrank crawl --warc keeps bodies as received and decodes them itself
  python3  # the demo serves its site with python3 -m http.server
  python3.11-doc  # the documentation site the demo (and the end-to-end crawl tests) serve on 127.0.0.1
)
# The optional parts, the tests and their oracles.
rest=(
  lmdb-utils libgtest-dev
  clang-14 libclang-rt-14-dev  # scripts/fuzz.sh: clang++-14 and its libFuzzer, ASan, UBSan
  python3-pytest python3-w3lib python3-networkx python3-scipy
  # Python bindings (issue 12): the module, its packaging and the Scrapy/Frontera side
  python3-dev pybind11-dev python3-numpy python3-setuptools python3-wheel python3-pip python3-venv
  python3-scrapy python3-six python3-sqlalchemy python3-cachetools python3-msgpack
  lmdb-doc  # a second one (Doxygen) beside it for the shared-frontier test
  postgresql-doc-15  # a third (DocBook): the display rank's test crawls it (test_display_rank.py)
  wget  # its --warc-file output is what the tests' WARC reader is checked against
  python3-protego  # the robots.txt oracle of tests/python/test_robots_oracle.py
  # crawlrank serve (issue 26): the URLFrontier API is gRPC; protoc and its gRPC plugins
  # generate the schema's C++ and, for the tests' client, Python at build time
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  python3-grpcio python3-protobuf
  python3-pandas  # PageDb.to_pandas() (issue 27), tested in CI
  # crawlrank dashboard (issue 27): its HTTP server, its charts (served from the package at
  # run time, never copied), and the tests' check of /metrics
  libcpp-httplib-dev libjs-chart.js python3-prometheus-client
  # the dashboard's browser tests: Selenium drives headless Chromium
  chromium chromium-driver python3-selenium
  python3-brotli python3-zstandard  # the tests' server encodes with the reference encoders
  # global ranks across a cluster's nodes (issue 46): crawlrank_rank_mpi runs under mpirun
  openmpi-bin libopenmpi-dev
  # the streaming HTML extractor's differential test against Gumbo (issue 47): every page
  # of four generators' documentation (with python3.11-doc and postgresql-doc-15)
  rust-doc libboost1.74-doc
)
packages=("${core[@]}")
if [ "${1:-}" != "--demo" ]; then packages+=("${rest[@]}"); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
