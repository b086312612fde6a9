def safe_ratio(a, b):
    log = []
    try:
        try:
            r = a / b
        except BaseException as exc:
            if isinstance(exc, ZeroDivisionError):
                r = math.inf
                log.append('div0')
            else:
                raise exc
    except BaseException as exc_1:
        log.append('done')
        raise exc_1
    log.append('done')
    return (r, log)
