// SubscriberAnalytics
