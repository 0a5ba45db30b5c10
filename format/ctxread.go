package format

import (
	"context"
	"io"
	"io/fs"
	"os"
)

// ContextReader returns a reader of r that stops when ctx is done, even
// while r keeps it waiting (a pipe whose writer is slow, a FIFO): such a
// read goes on in a goroutine of its own, which the reader leaves behind
// when ctx ends, as the process is then about to stop anyway. A regular
// file never keeps a read waiting, so it is read directly, with ctx looked
// at before each read.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return &ctxFileReader{ctx: ctx, f: f}
		}
	}
	return &ctxReader{ctx: ctx, r: r}
}

// ctxFileReader reads a regular file until ctx is done.
type ctxFileReader struct {
	ctx context.Context
	f   *os.File
}

func (c *ctxFileReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.f.Read(p)
}

// Stat describes the file, so that its reader may fit its buffer to it.
func (c *ctxFileReader) Stat() (fs.FileInfo, error) { return c.f.Stat() }

// ctxReader reads from r in a goroutine per read, until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	// buf is what the goroutine reads into, kept from one read to the
	// next: once ctx ends no read follows, so no two goroutines share it.
	buf []byte
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	type result struct {
		n   int
		err error
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	done := make(chan result, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- result{n, err}
	}()
	select {
	case res := <-done:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}
