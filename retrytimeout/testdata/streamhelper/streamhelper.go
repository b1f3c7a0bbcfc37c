// Package streamhelper holds streamed bodies under a total timeout where
// the body is read by a helper, the stream is known by what the loop does
// with each chunk, or the timeout is a config default; beside downloads
// into memory, single JSON answers and unset timeouts that stay quiet.
package streamhelper

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

var defaultClient = &http.Client{Timeout: 5 * time.Minute}

type progress struct {
	done     atomic.Int64
	callback func(done int64)
}

func (p *progress) add(n int64) {
	if p == nil || p.callback == nil {
		return
	}
	p.callback(p.done.Add(n))
}

type Options struct {
	Client   *http.Client
	Progress func(done int64)
}

type downloader struct {
	client   *http.Client
	progress *progress
}

func newDownloader(opts Options) *downloader {
	return &downloader{client: cmp.Or(opts.Client, defaultClient), progress: &progress{callback: opts.Progress}}
}

// (a) A blob download copied by a helper that reports progress as it
// reads: the client's 5m total timeout cuts a large blob off.
func (d *downloader) download(ctx context.Context, url, dest string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := d.client.Do(req) // want `total timeout on a streaming call: the response read chunk by chunk at streamhelper/streamhelper.go:\d+ \(in streamhelper.\(\*downloader\).copy\) is cut off after the 300s http.Client Timeout set at streamhelper/streamhelper.go:19 \(the client it is built with; other values are given at streamhelper/streamhelper.go:\d+\)`
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return d.save(dest, resp.Body)
}

func (d *downloader) save(dest string, r io.Reader) error {
	f, err := os.Create(dest)
	if err != nil {
		return err
	}
	defer f.Close()
	return d.copy(f, r)
}

func (d *downloader) copy(dst io.Writer, src io.Reader) error {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
			d.progress.add(int64(n))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// The same client for a small file read whole: quiet.
func (d *downloader) manifest(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// A helper that reads the body in a loop into memory, handing nothing on
// while it reads: not known to be a stream, quiet.
func (d *downloader) buffered(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readAll(resp.Body)
}

func readAll(r io.Reader) ([]byte, error) {
	var out bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// A download copied to a file with io.Copy: quiet (no sign it is large
// or handed on while it arrives).
func fetchFile(ctx context.Context, url string, f *os.File) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := defaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

type Plugin struct {
	Timeout int // response timeout in seconds (defaulted to 30)
	Address string
}

func (p *Plugin) Init() {
	if p.Timeout == 0 {
		p.Timeout = 30
	}
}

type generator struct {
	address string
	timeout int
}

func (p *Plugin) model() *generator {
	return &generator{address: p.Address, timeout: p.Timeout}
}

type chunk struct {
	Response string `json:"response"`
	Done     bool   `json:"done"`
}

// (b) A generation streamed to a callback, through a client whose Timeout
// is the plugin's defaulted 30s copied into the generator.
func (g *generator) generate(ctx context.Context, body []byte, cb func(context.Context, *chunk) error) error {
	client := &http.Client{Timeout: time.Duration(g.timeout) * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.address+"/api/generate", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := client.Do(req) // want `total timeout on a streaming call: the response read chunk by chunk at streamhelper/streamhelper.go:\d+ is cut off after the 30s http.Client Timeout set at streamhelper/streamhelper.go:\d+ \(default of p.Timeout, set at streamhelper/streamhelper.go:\d+; the program may set another\)`
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var c chunk
		if err := dec.Decode(&c); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := cb(ctx, &c); err != nil {
			return err
		}
	}
}

// One JSON answer through the same client: quiet.
func (g *generator) tags(ctx context.Context) (map[string]any, error) {
	client := &http.Client{Timeout: time.Duration(g.timeout) * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.address+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

type Settings struct{ ReadTimeout int }

// A timeout read from a setting with no default in the code: its value is
// not known (it may be 0, no timeout), quiet.
func stream(ctx context.Context, s Settings, url string, out chan<- []byte) error {
	client := &http.Client{Timeout: time.Duration(s.ReadTimeout) * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf := make([]byte, 1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			out <- append([]byte(nil), buf[:n]...)
		}
		if err != nil {
			return nil
		}
	}
}

// A stream handed on over a channel through a client with no Timeout:
// quiet.
func events(ctx context.Context, url string, out chan<- []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf := make([]byte, 1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			out <- append([]byte(nil), buf[:n]...)
		}
		if err != nil {
			return nil
		}
	}
}

// Lines handed on one by one through a 30s client, with no event markers
// and no progress report: not known to be long, quiet.
func lines(ctx context.Context, url string, emit func([]byte)) error {
	client := &http.Client{Timeout: 30 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf := make([]byte, 1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			emit(buf[:n])
		}
		if err != nil {
			return nil
		}
	}
}
