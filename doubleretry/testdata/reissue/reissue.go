// Package reissue: Bubble Tea retries (Update issues the request again
// when it failed) around openai-go calls, which retry by themselves.
package reissue

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

type askMsg struct{ prompt string }

type answerMsg struct{ text string }

type failedMsg struct{ err error }

// chat re-issues the request three times on an SDK that retries twice.
type chat struct {
	client  openai.Client
	retries int
	answer  string
}

func newChat() *chat { return &chat{client: openai.NewClient(option.WithAPIKey("k"))} }

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
		return m, tea.Quit
	}
	return m, nil
}

func (m *chat) ask(prompt string) tea.Cmd {
	return func() tea.Msg {
		resp, err := m.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    openai.ChatModelGPT4o,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		})
		if err != nil {
			return m.retry(prompt, err)
		}
		return answerMsg{resp.Choices[0].Message.Content}
	}
}

func (m *chat) retry(prompt string, err error) tea.Msg {
	m.retries++
	if m.retries >= 3 {
		return failedMsg{err}
	}
	time.Sleep(time.Second)
	return askMsg{prompt} // want `Bubble Tea retry \(re-issued from Update\) \(3 attempts\) at reissue/reissue.go:\d+ wraps openai Chat.Completions.New at reissue/reissue.go:\d+, which retries 2 more times by default \(client built at reissue/reissue.go:\d+\): up to 9 requests`
}

// lean turns the SDK's retries off: the Bubble Tea retry is the only layer.
type lean struct {
	client  openai.Client
	retries int
}

func newLean() *lean {
	return &lean{client: openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0))}
}

func (m *lean) Init() tea.Cmd { return func() tea.Msg { return askMsg{"hi"} } }

func (m *lean) View() string { return "" }

func (m *lean) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case askMsg:
		return m, func() tea.Msg {
			_, err := m.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model:    openai.ChatModelGPT4o,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(msg.prompt)},
			})
			if err != nil {
				m.retries++
				if m.retries > 3 {
					return failedMsg{err}
				}
				return askMsg{msg.prompt}
			}
			return answerMsg{}
		}
	case answerMsg, failedMsg:
		return m, tea.Quit
	}
	return m, nil
}

// refresher asks again every minute after an answer: a poll, one SDK
// retry layer only.
type refresher struct{ client openai.Client }

func (m refresher) Init() tea.Cmd { return m.ask() }

func (m refresher) View() string { return "" }

func (m refresher) ask() tea.Cmd {
	return tea.Tick(time.Minute, func(time.Time) tea.Msg {
		resp, err := m.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    openai.ChatModelGPT4o,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("status?")},
		})
		if err != nil {
			return failedMsg{err}
		}
		return answerMsg{resp.Choices[0].Message.Content}
	})
}

func (m refresher) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case answerMsg:
		return m, m.ask()
	case failedMsg:
		return m, tea.Quit
	}
	return m, nil
}
