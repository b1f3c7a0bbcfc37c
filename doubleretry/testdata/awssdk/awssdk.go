// Package awssdk holds the aws-sdk-go-v2 and avast/retry-go cases.
package awssdk

import (
	"context"
	"io"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Fetch retries 3 times around an s3 client built from a config the caller
// passes: its retryer cannot be seen, the SDK default (3 attempts) is assumed.
func Fetch(ctx context.Context, cfg aws.Config, key string) ([]byte, error) {
	client := s3.NewFromConfig(cfg)
	var data []byte
	err := retry.Do(func() error { // want `retry.Do \(3 attempts\) at awssdk/awssdk.go:20 wraps aws s3.GetObject at awssdk/awssdk.go:21, which retries 2 more times \(SDK default \(2 retries\), assumed: the configuration of the client built at awssdk/awssdk.go:18 cannot be read\): up to 9 requests per call; pick one layer: RetryMaxAttempts = 1 \(or aws.NopRetryer\) on the client, or drop this retry.Do`
		out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		data, err = io.ReadAll(out.Body)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
	return data, err
}

// FetchNop: the client's retryer is aws.NopRetryer: quiet.
func FetchNop(ctx context.Context, cfg aws.Config, key string) ([]byte, error) {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.Retryer = aws.NopRetryer{} })
	var data []byte
	err := retry.Do(func() error {
		out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		data, err = io.ReadAll(out.Body)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
	return data, err
}

// FetchOne: max attempts 1 through retry.AddWithMaxAttempts: quiet.
func FetchOne(ctx context.Context, cfg aws.Config, key string) ([]byte, error) {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.Retryer = awsretry.AddWithMaxAttempts(awsretry.NewStandard(), 1)
	})
	var data []byte
	err := retry.Do(func() error {
		out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		data, err = io.ReadAll(out.Body)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
	return data, err
}

// FetchMax1: RetryMaxAttempts = 1 on the options: quiet.
func FetchMax1(ctx context.Context, cfg aws.Config, key string) ([]byte, error) {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	var data []byte
	err := retry.Do(func() error {
		out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		data, err = io.ReadAll(out.Body)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
	return data, err
}

// FetchLocal: the client is built here from options that set no retryer:
// the standard retryer, 3 attempts, under 4 attempts of an own loop.
func FetchLocal(ctx context.Context, key string) ([]byte, error) {
	client := s3.New(s3.Options{Region: "eu-west-1"})
	var err error
	for i := 0; i < 4; i++ { // want `retry loop \(4 attempts\) at awssdk/awssdk.go:87 wraps aws s3.GetObject at awssdk/awssdk.go:88, which retries 2 more times by default \(client built at awssdk/awssdk.go:85\): up to 12 requests per call; pick one layer: RetryMaxAttempts = 1 \(or aws.NopRetryer\) on the client, or drop this loop`
		out, e := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if e == nil {
			defer out.Body.Close()
			return io.ReadAll(out.Body)
		}
		err = e
		time.Sleep(time.Duration(i+1) * 200 * time.Millisecond)
	}
	return nil, err
}

// FetchLocalOff: the same with RetryMaxAttempts 1 in the options: quiet.
func FetchLocalOff(ctx context.Context, key string) ([]byte, error) {
	client := s3.New(s3.Options{Region: "eu-west-1", RetryMaxAttempts: 1})
	var err error
	for i := 0; i < 4; i++ {
		out, e := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if e == nil {
			defer out.Body.Close()
			return io.ReadAll(out.Body)
		}
		err = e
		time.Sleep(time.Duration(i+1) * 200 * time.Millisecond)
	}
	return nil, err
}

// FetchOnce: retry.Do with retry.Attempts(1) makes one attempt; only the
// SDK retries: quiet.
func FetchOnce(ctx context.Context, key string) ([]byte, error) {
	client := s3.New(s3.Options{Region: "eu-west-1"})
	var data []byte
	err := retry.Do(func() error {
		out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(key)})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		data, err = io.ReadAll(out.Body)
		return err
	}, retry.Attempts(1), retry.Context(ctx))
	return data, err
}
