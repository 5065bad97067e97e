//go:build tools

// Package lint pins golangci-lint, which make verify builds from source through the Go
// module proxy (scripts/verify.sh) and runs over the tracks, shared/ and scripts/tools
// with the settings of .golangci.yml. A module of its own: its dependencies would move
// those of the workshop's tools.
package lint

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
