// Package shapes_reissue holds retries without a loop: Bubble Tea models
// whose Update answers a failure by issuing the request again, beside
// models whose cycles are polls, spinners or errors shown and left.
package shapes_reissue

import (
	"context"
	"errors"
	"net/http"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/openai/openai-go/v3"
)

// ---- a retry: the error callback answers with the request again ----

type askMsg struct{ prompt string }

type answerMsg struct{ text string }

type failedMsg struct{ err error }

type chat struct {
	ctx     context.Context
	client  openai.Client
	retries int
	err     error
	answer  string
}

func (m *chat) Init() tea.Cmd { return func() tea.Msg { return askMsg{"hi"} } }

func (m *chat) View() string { return m.answer }

func (m *chat) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case askMsg:
		return m, m.ask(msg.prompt)
	case answerMsg:
		m.answer = msg.text
		return m, tea.Quit
	case failedMsg:
		m.err = msg.err
		return m, tea.Quit
	}
	return m, nil
}

func (m *chat) ask(prompt string) tea.Cmd {
	return func() tea.Msg {
		resp, err := m.client.Chat.Completions.New(m.ctx, openai.ChatCompletionNewParams{ // want `openai Chat.Completions.New: attempts=3`
			Model:    openai.ChatModelGPT4o,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		})
		if err != nil {
			return m.retry(prompt, err)
		}
		return answerMsg{resp.Choices[0].Message.Content}
	}
}

// retry counts and sleeps, then hands the request back to Update.
func (m *chat) retry(prompt string, err error) tea.Msg {
	m.retries++
	if m.retries >= 4 {
		return failedMsg{err}
	}
	time.Sleep(500 * time.Millisecond)
	return askMsg{prompt} // want `Bubble Tea retry \(re-issued from Update\): attempts=4 waits=500ms,500ms,500ms jitter=no deadline=unknown cancellable=no retryafter=unknown`
}

// ---- a retry: Update itself re-issues on the error message, after a tick ----

type fetchErrMsg struct{ err error }

type fetched struct{ body string }

type page struct {
	url   string
	tries int
	body  string
}

func (m page) Init() tea.Cmd { return m.fetch }

func (m page) View() string { return m.body }

func (m page) fetch() tea.Msg {
	resp, err := http.Get(m.url)
	if err != nil {
		return fetchErrMsg{err} // want `Bubble Tea retry \(re-issued from Update\): attempts=4 waits=2s,2s,2s jitter=no deadline=unknown cancellable=unknown retryafter=unknown`
	}
	defer resp.Body.Close()
	return fetched{resp.Status}
}

func (m page) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case fetchErrMsg:
		if m.tries >= 3 {
			return m, tea.Quit
		}
		m.tries++
		return m, tea.Tick(2*time.Second, func(time.Time) tea.Msg { return m.fetch() })
	case fetched:
		m.body = msg.body
	}
	return m, nil
}

// ---- quiet: a refresh tick re-runs the request after it succeeded ----

type refreshMsg struct{}

type stats struct{ n int }

type dashboard struct {
	url  string
	last stats
	err  error
}

func (m dashboard) Init() tea.Cmd { return m.poll() }

func (m dashboard) View() string { return "" }

func (m dashboard) poll() tea.Cmd {
	return tea.Tick(5*time.Second, func(time.Time) tea.Msg {
		resp, err := http.Get(m.url)
		if err != nil {
			return errMsg{err}
		}
		resp.Body.Close()
		return refreshMsg{}
	})
}

type errMsg struct{ err error }

func (m dashboard) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case refreshMsg:
		m.last.n++
		return m, m.poll()
	case errMsg:
		m.err = msg.err // shown in View; the user quits
		return m, nil
	}
	return m, nil
}

// ---- quiet: the error is shown and the program stops ----

type loadMsg struct{}

type loader struct {
	client openai.Client
	err    error
}

func (m loader) Init() tea.Cmd { return func() tea.Msg { return loadMsg{} } }

func (m loader) View() string { return "" }

func (m loader) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case loadMsg:
		return m, func() tea.Msg {
			_, err := m.client.Models.List(context.Background()) // want `openai Models.List: attempts=3`
			if err != nil {
				return errMsg{err}
			}
			return nil
		}
	case errMsg:
		m.err = msg.err
		return m, tea.Quit
	}
	return m, nil
}

// ---- quiet: a spinner ticks itself ----

type tickMsg time.Time

type spinner struct{ frame int }

func (s spinner) Init() tea.Cmd { return s.tick() }

func (s spinner) View() string { return "|/-\\"[s.frame%4 : s.frame%4+1] }

func (s spinner) tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (s spinner) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tickMsg:
		s.frame++
		return s, s.tick()
	}
	return s, nil
}

// ---- quiet: a stream that asks for its next chunk after each one ----

type chunkMsg struct {
	text string
	next func() (string, error)
}

type doneMsg struct{}

type reader struct{ out string }

func (m reader) Init() tea.Cmd { return nil }

func (m reader) View() string { return m.out }

func (m reader) recv(next func() (string, error)) tea.Cmd {
	return func() tea.Msg {
		s, err := next()
		if errors.Is(err, errEOF) {
			return doneMsg{}
		}
		if err != nil {
			return errMsg{err}
		}
		return chunkMsg{s, next}
	}
}

var errEOF = errors.New("eof")

func (m reader) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case chunkMsg:
		m.out += msg.text
		return m, m.recv(msg.next)
	case doneMsg, errMsg:
		return m, tea.Quit
	}
	return m, nil
}

// ---- quiet: a watcher asks again only when the last check worked ----

type checkMsg struct{}

type watcher struct {
	url  string
	down bool
}

func (m watcher) Init() tea.Cmd { return m.check }

func (m watcher) View() string { return "" }

func (m watcher) check() tea.Msg {
	resp, err := http.Get(m.url)
	return m.settle(resp, err)
}

// settle is handed the error, but answers with the next check only when
// there was none.
func (m watcher) settle(resp *http.Response, err error) tea.Msg {
	if err == nil {
		resp.Body.Close()
		return checkMsg{}
	}
	return errMsg{err}
}

func (m watcher) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case checkMsg:
		return m, tea.Tick(time.Minute, func(time.Time) tea.Msg { return m.check() })
	case errMsg:
		m.down = true
		return m, nil
	}
	return m, nil
}
