// The file-tree module proxy writer of `npm run release` (scripts/release-sdks.mts): golang.org/x/mod makes the
// zip exactly as the go command does.
module pulumi-observability/engine/goproxy

go 1.26.0

require golang.org/x/mod v0.42.0
