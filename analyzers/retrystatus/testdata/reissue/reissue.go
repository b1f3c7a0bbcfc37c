// Package reissue: the classifiers of Bubble Tea retries (an error handler
// that answers with the request again or with an error to show).
package reissue

import (
	"context"
	"errors"
	"net/http"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/openai/openai-go/v3"
)

type askMsg struct{ prompt string }

type answerMsg struct{ text string }

type failedMsg struct{ err error }

type chat struct {
	client   openai.Client
	model    string
	fallback string
	retries  int
}

func (m *chat) Init() tea.Cmd { return func() tea.Msg { return askMsg{"hi"} } }

func (m *chat) View() string { return "" }

func (m *chat) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case askMsg:
		return m, m.ask(msg.prompt)
	case answerMsg, failedMsg:
		return m, tea.Quit
	}
	return m, nil
}

func (m *chat) ask(prompt string) tea.Cmd {
	return func() tea.Msg {
		resp, err := m.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    m.model,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		})
		if err != nil {
			return m.handle(err, prompt)
		}
		return answerMsg{resp.Choices[0].Message.Content}
	}
}

// handle retries what it does not list: a 403 or 422 is sent again.
func (m *chat) handle(err error, prompt string) tea.Msg {
	var ae *openai.Error
	if !errors.As(err, &ae) {
		return failedMsg{err}
	}
	switch ae.StatusCode {
	case http.StatusNotFound:
		if m.fallback != "" {
			m.model = m.fallback // another model: not the same request
			return m.retry(prompt, err)
		}
		return failedMsg{err}
	case http.StatusBadRequest, http.StatusUnauthorized:
		return failedMsg{err}
	case http.StatusTooManyRequests: // want `retry decision retries every 429 without reading the error's code or type: an exhausted quota \(insufficient_quota\) is attempted 4 times before it fails`
		return m.retry(prompt, err)
	case http.StatusInternalServerError:
		return m.retry(prompt, err)
	default: // want `retry decision retries 403 \(forbidden\), 413 \(payload too large\), 422 \(unprocessable\): the same request fails the same way on each of 4 attempts; give up on them`
		return m.retry(prompt, err)
	}
}

func (m *chat) retry(prompt string, err error) tea.Msg {
	m.retries++
	if m.retries >= 4 {
		return failedMsg{err}
	}
	time.Sleep(time.Duration(m.retries) * time.Second)
	return askMsg{prompt}
}

// careful gives up on what it does not list, and reads the code of a 429.
type careful struct {
	client  openai.Client
	retries int
}

func (m *careful) Init() tea.Cmd { return func() tea.Msg { return askMsg{"hi"} } }

func (m *careful) View() string { return "" }

func (m *careful) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case askMsg:
		return m, func() tea.Msg {
			_, err := m.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model:    openai.ChatModelGPT4o,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(msg.prompt)},
			})
			if err != nil {
				return m.handle(err, msg.prompt)
			}
			return answerMsg{}
		}
	case answerMsg, failedMsg:
		return m, tea.Quit
	}
	return m, nil
}

func (m *careful) handle(err error, prompt string) tea.Msg {
	var ae *openai.Error
	if !errors.As(err, &ae) {
		return failedMsg{err}
	}
	switch {
	case ae.StatusCode == http.StatusTooManyRequests:
		if ae.Code == "insufficient_quota" {
			return failedMsg{err}
		}
		return m.again(prompt, err)
	case ae.StatusCode >= 500:
		return m.again(prompt, err)
	default:
		return failedMsg{err}
	}
}

func (m *careful) again(prompt string, err error) tea.Msg {
	if m.retries == 3 {
		return failedMsg{err}
	}
	m.retries++
	time.Sleep(time.Second)
	return askMsg{prompt}
}
