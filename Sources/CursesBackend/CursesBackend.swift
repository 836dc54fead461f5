// CursesBackend
