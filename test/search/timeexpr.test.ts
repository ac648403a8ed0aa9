import { describe, expect, it } from 'vitest';
import { parseTimeRange } from '../../lib/search/timeexpr.js';

// Friday 2026-05-15 14:30 UTC (FIXED_NOW); the ISO week runs Mon 05-11 … Sun 05-17.
const NOW = new Date('2026-05-15T14:30:00Z');
const r = (q: string, tz = 'UTC') => {
  const x = parseTimeRange(q, NOW, tz);
  return x ? [x.from, x.to] : undefined;
};

describe('time expressions against a fixed clock', () => {
  it('relative days', () => {
    expect(r('what did we do yesterday')).toEqual(['2026-05-14', '2026-05-14']);
    expect(r('today')).toEqual(['2026-05-15', '2026-05-15']);
    expect(r('the day before yesterday')).toEqual(['2026-05-13', '2026-05-13']);
    expect(r('3 days ago')).toEqual(['2026-05-12', '2026-05-12']);
  });
  it('weekdays: "last Tuesday" is the latest Tuesday before today', () => {
    expect(r('What did we do last Tuesday?')).toEqual(['2026-05-12', '2026-05-12']);
    expect(r('last Friday')).toEqual(['2026-05-08', '2026-05-08']); // today is Friday: a week back
  });
  it('weeks, months and years', () => {
    expect(r('last week')).toEqual(['2026-05-04', '2026-05-10']);
    expect(r('this week')).toEqual(['2026-05-11', '2026-05-15']);
    expect(r('last month')).toEqual(['2026-04-01', '2026-04-30']);
    expect(r('in May 2023')).toEqual(['2023-05-01', '2023-05-31']);
    expect(r('in December')).toEqual(['2025-12-01', '2025-12-31']); // a month after this one: last year's
    expect(r('in 2024')).toEqual(['2024-01-01', '2024-12-31']);
    expect(r('8 May 2023')).toEqual(['2023-05-08', '2023-05-08']);
    expect(r('May 8, 2023')).toEqual(['2023-05-08', '2023-05-08']);
    expect(r('2026-02-28')).toEqual(['2026-02-28', '2026-02-28']);
  });
  it('a month and day without a year: the most recent such day, as 10月14日 is read', () => {
    expect(r('what happened on May 8')).toEqual(['2026-05-08', '2026-05-08']);
    expect(r('on the 8th of May')).toEqual(['2026-05-08', '2026-05-08']);
    expect(r('Oct 14th')).toEqual(['2025-10-14', '2025-10-14']); // later in the year than today: last year's
    expect(r('14 October')).toEqual(['2025-10-14', '2025-10-14']);
    expect(r('October 14, 2026')).toEqual(['2026-10-14', '2026-10-14']);
    expect(r('May 32')).toBeUndefined();
    expect(r('the call at 10:30')).toBeUndefined();
  });
  it('Chinese', () => {
    expect(r('上周二')).toEqual(['2026-05-05', '2026-05-05']); // Tuesday of the previous week
    expect(r('昨天的会议')).toEqual(['2026-05-14', '2026-05-14']);
    expect(r('前天')).toEqual(['2026-05-13', '2026-05-13']);
    expect(r('上周')).toEqual(['2026-05-04', '2026-05-10']);
    expect(r('本周三')).toEqual(['2026-05-13', '2026-05-13']);
    expect(r('上个月')).toEqual(['2026-04-01', '2026-04-30']);
    expect(r('2023年5月')).toEqual(['2023-05-01', '2023-05-31']);
    expect(r('5月8日')).toEqual(['2026-05-08', '2026-05-08']);
    expect(r('去年')).toEqual(['2025-01-01', '2025-12-31']);
  });
  it('uses the clock zone for "today"', () => {
    // 14:30 UTC is already 05-16 in Auckland (UTC+12)
    expect(r('yesterday', 'Pacific/Auckland')).toEqual(['2026-05-15', '2026-05-15']);
  });
  it('returns nothing without a time expression, and ignores "may" the verb', () => {
    expect(r('docker deploy failed')).toBeUndefined();
    expect(r('we may deploy docker')).toBeUndefined();
    expect(r('invalid 2026-02-30')).toBeUndefined();
  });
});

describe('Chinese time phrases a Chinese-speaking user tried (2026-05-15 is a Friday)', () => {
  it('weeks before last, next week, weekends, days before', () => {
    expect(r('上上周做了什么')).toEqual(['2026-04-27', '2026-05-03']);
    expect(r('上上周二的会')).toEqual(['2026-04-28', '2026-04-28']);
    expect(r('下周三的评审')).toEqual(['2026-05-20', '2026-05-20']);
    expect(r('大前天')).toEqual(['2026-05-12', '2026-05-12']);
    expect(r('上周末去哪了')).toEqual(['2026-05-09', '2026-05-10']);
    expect(r('这周末')).toEqual(['2026-05-16', '2026-05-17']);
    expect(r('周末')).toEqual(['2026-05-09', '2026-05-10']);
    expect(r('三天前')).toEqual(['2026-05-12', '2026-05-12']);
    expect(r('两天前说的')).toEqual(['2026-05-13', '2026-05-13']);
    expect(r('3天前')).toEqual(['2026-05-12', '2026-05-12']);
    expect(r('上个星期二')).toEqual(['2026-05-05', '2026-05-05']);
  });
  it('traditional and full-width forms, Chinese numerals, a month alone, month/day, 五一', () => {
    expect(r('上週二')).toEqual(['2026-05-05', '2026-05-05']);
    expect(parseTimeRange('上週二開會', NOW, 'UTC')!.phrases).toEqual(['上週二']);
    expect(r('五月三号')).toEqual(['2026-05-03', '2026-05-03']);
    expect(r('５月３号')).toEqual(['2026-05-03', '2026-05-03']);
    expect(parseTimeRange('５月３号的机票', NOW, 'UTC')!.phrases).toEqual(['５月３号']);
    expect(r('十二月二十五日')).toEqual(['2025-12-25', '2025-12-25']);
    expect(r('4月的事')).toEqual(['2026-04-01', '2026-04-30']);
    expect(r('6月')).toEqual(['2025-06-01', '2025-06-30']);
    expect(r('5/3 那天')).toEqual(['2026-05-03', '2026-05-03']);
    expect(r('5/3')).toBeUndefined(); // no Chinese: not read as a date
    expect(r('五一去哪玩')).toEqual(['2026-05-01', '2026-05-05']);
    // unchanged
    expect(r('上周二')).toEqual(['2026-05-05', '2026-05-05']);
    expect(r('3个月的计划')).toBeUndefined();
  });
});
