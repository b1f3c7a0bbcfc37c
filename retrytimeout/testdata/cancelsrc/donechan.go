package cancelsrc

import (
	"math/rand/v2"
	"net/http"
	"time"
)

// Quiet: a worker stopped through a done channel field. Stop closes
// p.stop and Run returns on it, but that is the worker's lifetime, not a
// caller's cancellation: a retry that outlives it by one wait costs
// nothing.
type Poster struct {
	url   string
	stop  chan struct{}
	ready chan struct{}
	kick  chan struct{}
	work  chan string
}

func NewPoster(url string) *Poster {
	return &Poster{url: url, stop: make(chan struct{}), ready: make(chan struct{}), kick: make(chan struct{}, 1), work: make(chan string)}
}

func (p *Poster) Stop() { close(p.stop) }

func (p *Poster) Run() {
	close(p.ready)
	for {
		select {
		case <-p.stop:
			return
		case body := <-p.work:
			p.post(body)
		}
	}
}

func (p *Poster) post(body string) bool {
	for i := 0; i < 4; i++ {
		resp, err := http.Post(p.url, "text/plain", nil)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return true
		}
		if err == nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
	}
	return false
}

// A stop channel handed in, as client-go's wait functions take one.
func PostUntil(stopCh <-chan struct{}, url string) bool {
	for i := 0; i < 4; i++ {
		resp, err := http.Post(url, "text/plain", nil)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return true
		}
		if err == nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(i+1) * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after stopCh is closed`
	}
	return false
}

// Quiet as to cancellation: a ready channel (closed, then only waited for)
// and a kick channel (never closed) cancel nothing, so no caller's
// deadline reaches the retry and its attempt count is the bound it can
// have: quiet as to time too.
type Warmer struct {
	url   string
	ready chan struct{}
	kick  chan struct{}
}

func NewWarmer(url string) *Warmer {
	return &Warmer{url: url, ready: make(chan struct{}), kick: make(chan struct{}, 1)}
}

func (w *Warmer) Start() {
	go func() {
		w.warm()
		close(w.ready)
	}()
	<-w.ready
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *Warmer) warm() bool {
	for i := 0; i < 4; i++ {
		resp, err := http.Get(w.url)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return true
		}
		if err == nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
	}
	return false
}
