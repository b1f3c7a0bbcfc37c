// Package aws exercises github.com/aws/aws-sdk-go-v2.
package aws

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

var in = &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("k")}

func standard(ctx context.Context) error {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	c := s3.NewFromConfig(cfg)
	_, err = c.GetObject(ctx, in) // want `^aws s3\.GetObject kind=sdk attempts=3 waits=- jitter=yes deadline=yes cancel=yes retryafter=yes .*assumed=false client=aws/aws.go:20`
	return err
}

func configured(ctx context.Context) error {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryMaxAttempts(5))
	if err != nil {
		return err
	}
	c := s3.NewFromConfig(cfg)
	_, err = c.GetObject(ctx, in) // want `^aws s3\.GetObject kind=sdk attempts=5 .*assumed=false`
	return err
}

func nop(ctx context.Context) error {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }))
	if err != nil {
		return err
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {})
	_, err = c.GetObject(ctx, in) // want `^aws s3\.GetObject kind=sdk attempts=1 .*assumed=false`
	return err
}

func clientOpt(ctx context.Context, cfg aws.Config) error {
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.Retryer = retry.AddWithMaxAttempts(o.Retryer, 1)
	})
	_, err := c.GetObject(ctx, in) // want `^aws s3\.GetObject kind=sdk attempts=1 .*assumed=false`
	return err
}

func perCall(c *s3.Client, ctx context.Context) error {
	_, err := c.GetObject(ctx, in, func(o *s3.Options) { o.RetryMaxAttempts = 2 }) // want `^aws s3\.GetObject kind=sdk attempts=2 .*assumed=false`
	return err
}

func given(c *s3.Client, ctx context.Context) error {
	_, err := c.GetObject(ctx, in) // want `^aws s3\.GetObject kind=sdk attempts=3 .*assumed=true client=-`
	return err
}

// A paginator's NextPage runs the client's operation with its retryer.
func pages(ctx context.Context, cfg aws.Config) error {
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.RetryMaxAttempts = 4 })
	pg := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String("b")})
	for pg.HasMorePages() {
		if _, err := pg.NextPage(ctx); err != nil { // want `^aws s3\.ListObjectsV2 \(paginator\) kind=sdk attempts=4 .*assumed=false client=aws/aws.go:65`
			return err
		}
	}
	return nil
}
