//go:build !unix

package budget

// addressLimit returns 0: no address space limit is read here.
func addressLimit() int64 { return 0 }

// mappedSpace returns 0: the mapped address space is not read here.
func mappedSpace() int64 { return 0 }
