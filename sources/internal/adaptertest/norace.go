//go:build !race

package adaptertest

const raceBuild = false
