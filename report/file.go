package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/histcheck/histcheck/history"
)

// writeFileAtomic writes a file through write so that path holds either
// its old content or the whole new one, never a part: the content goes to
// a temporary file in the same directory (so that the rename stays on one
// file system), which is synced and renamed over path. A failure leaves
// path as it was and removes the temporary file; a process killed while
// writing leaves path as it was and the hidden temporary file behind. A
// symbolic link is followed, so the file it names is replaced and the link
// kept; a path that exists and is not a regular file (a terminal,
// /dev/stdout, a FIFO) cannot be replaced and is written in place.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	target := path
	mode, keep := fs.FileMode(0o666), false // before the umask, as os.Create
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return writeInPlace(path, write)
		}
		if resolved, err := filepath.EvalSymlinks(path); err == nil {
			target = resolved
		}
		mode, keep = fi.Mode().Perm(), true
	}
	f, err := createTemp(target, mode)
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && keep {
		// Keep the replaced file's permissions, which the umask may narrow.
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// createTemp creates a new hidden file next to target with mode (less the
// umask) and a name no other file has.
func createTemp(target string, mode fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(target)
	for range 100 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// Name the directory, not the temporary file the user never asked for.
			return nil, fmt.Errorf("cannot create a file in %s: %w", filepath.Clean(dir), pe.Err)
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file next to %s", target)
}

// writeInPlace writes to a path that cannot be replaced by renaming.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteHTMLFile writes the web page of rep to path through a temporary
// file renamed over it, so that a crash or an interrupt never leaves half
// a page.
func WriteHTMLFile(path string, rep *Report) error {
	if err := writeFileAtomic(path, func(w io.Writer) error { return HTML(w, rep) }); err != nil {
		return fmt.Errorf("writing the web page %s: %w", history.Quote(path), err)
	}
	return nil
}
