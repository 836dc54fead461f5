print("subdash")
