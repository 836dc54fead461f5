// Dashboard
