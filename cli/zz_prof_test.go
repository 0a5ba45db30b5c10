package cli

import (
	"io"
	"testing"
)

func BenchmarkZZC50(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Main([]string{"check", "-o", "json", "-m", "kv", "--init", `""`, "/work/shared/corpus/porcupine-kv/c50-bad.txt"}, nil, io.Discard, io.Discard)
	}
}
func BenchmarkZZC50NoCore(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Main([]string{"check", "-o", "json", "--no-core", "-m", "kv", "--init", `""`, "/work/shared/corpus/porcupine-kv/c50-bad.txt"}, nil, io.Discard, io.Discard)
	}
}
