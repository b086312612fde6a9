def with_recorder(x):
    rec = Recorder()
    t = type(rec)
    t_1 = t.__enter__
    t = t.__exit__
    r = t_1(rec)
    try:
        r.events.append(x * 2)
    except BaseException as exc:
        if not t(rec, type(exc), exc, exc.__traceback__):
            raise exc
    else:
        t(rec, None, None, None)
    return rec.events
