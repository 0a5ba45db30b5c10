package cli

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true},
		{"2GB", 2e9, true},
		{"512MiB", 512 << 20, true},
		{"1.5G", 3 << 29, true},
		{"64 kb", 64e3, true},
		// MB and the like are powers of 1000; MiB and bare M powers of 1024.
		{"16MB", 16e6, true},
		{"16MiB", 16 << 20, true},
		{"16M", 16 << 20, true},
		{"3 KiB", 3 << 10, true},
		{"2 GiB", 2 << 30, true},
		{"1TB", 1e12, true},
		{"1TiB", 1 << 40, true},
		{"1.5mb", 15e5, true},
		{"0", 0, true},
		{"none", 0, true},
		{"-1", 0, false},
		{"lots", 0, false},
		{"GB", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
