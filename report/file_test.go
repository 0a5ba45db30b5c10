package report

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")

	// A new file gets the content and the mode os.Create would give.
	if err := writeFileAtomic(page, writeString("one")); err != nil {
		t.Fatal(err)
	}
	ref, err := os.Create(filepath.Join(t.TempDir(), "ref"))
	if err != nil {
		t.Fatal(err)
	}
	refInfo, _ := ref.Stat()
	ref.Close()
	if fi, _ := os.Stat(page); fi.Mode() != refInfo.Mode() {
		t.Errorf("new file mode %v, want %v as os.Create gives", fi.Mode(), refInfo.Mode())
	}
	if got := content(t, page); got != "one" {
		t.Errorf("content %q, want %q", got, "one")
	}

	// While the new content is written, the old one is all there is at
	// path: an interrupt then leaves the old page whole.
	if err := os.Chmod(page, 0o600); err != nil {
		t.Fatal(err)
	}
	err = writeFileAtomic(page, func(w io.Writer) error {
		if _, err := io.WriteString(w, "two, half"); err != nil {
			return err
		}
		if got := content(t, page); got != "one" {
			t.Errorf("during the write path holds %q, want the old %q", got, "one")
		}
		_, err := io.WriteString(w, " and the rest")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := content(t, page); got != "two, half and the rest" {
		t.Errorf("content %q after replacing", got)
	}
	if fi, _ := os.Stat(page); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want the old 0600 kept", fi.Mode())
	}

	// A failed write leaves the old content and no temporary file.
	boom := errors.New("boom")
	err = writeFileAtomic(page, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want the writer's", err)
	}
	if got := content(t, page); got != "two, half and the rest" {
		t.Errorf("failed write changed the content to %q", got)
	}
	// And a failed write of a new file leaves no file at all.
	if err := writeFileAtomic(filepath.Join(dir, "new.html"), func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("error %v, want the writer's", err)
	}
	if got := files(t, dir); len(got) != 1 || got[0] != "page.html" {
		t.Errorf("directory holds %q, want only page.html", got)
	}
}

func TestWriteFileAtomicSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.html")
	link := filepath.Join(dir, "link.html")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := writeFileAtomic(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if got := content(t, target); got != "new" {
		t.Errorf("the linked file holds %q, want %q", got, "new")
	}
}

func TestWriteFileAtomicNotRegular(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip(err)
	}
	if err := writeFileAtomic(os.DevNull, writeString("x")); err != nil {
		t.Fatalf("writing to %s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s is now %v, %v", os.DevNull, fi, err)
	}
}

func TestWriteFileAtomicNoDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such")
	err := writeFileAtomic(filepath.Join(dir, "page.html"), writeString("x"))
	if err == nil || !strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %v, want one naming the directory and not the temporary file", err)
	}
}
