//go:build !linux || !(amd64 || arm64)

package hugepages

// Start does nothing where the advice is not given.
func Start() (stop func()) { return func() {} }
