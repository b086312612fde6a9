def describe(name, value):
    return f"{name}={value:{'.3f'}} ({value!r})"
