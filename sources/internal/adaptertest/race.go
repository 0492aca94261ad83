//go:build race

package adaptertest

// raceBuild: the race detector makes decoding several times slower, so the huge bodies of the
// tests are smaller under it (still far over what the decoders may hold).
const raceBuild = true
