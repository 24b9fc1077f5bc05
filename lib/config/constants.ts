export const DEFAULT_SCRAPER_ANNOTATION_KEY = "cloudwatch.aws.amazon.com/scraper";
