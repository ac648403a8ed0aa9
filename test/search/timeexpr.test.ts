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


// Issue 32: one reading of time (lib/format/time). 2026-05-15 is a Friday; its week runs Mon 05-11 … Sun 05-17.
const range = (q: string) => parseTimeRange(q, NOW, 'UTC');

describe('a phrase is read whole or not at all', () => {
  it('a year and a holiday or a day of it: last year\'s May Day, not this year\'s', () => {
    expect(r('去年五一去哪玩了')).toEqual(['2025-05-01', '2025-05-05']);
    expect(r('去年国庆去哪玩了')).toEqual(['2025-10-01', '2025-10-07']);
    expect(r('去年的中秋')).toEqual(['2025-10-04', '2025-10-08']); // 中秋 2025 is 10-06
    expect(r('2024年春节')).toEqual(['2024-02-09', '2024-02-15']); // 除夕 to 初六
    expect(r('去年10月1日')).toEqual(['2025-10-01', '2025-10-01']);
    expect(r('what did we do at Christmas last year')).toEqual(['2025-12-24', '2025-12-26']);
    expect(r("last year's Thanksgiving")).toEqual(['2025-11-27', '2025-11-30']);
    // a date's words leave the query's words; a holiday's name and a relative phrase stay words too (memories write them)
    expect(range('2025年五一去哪玩了')).toMatchObject({ phrases: ['2025年五一'], strip: ['2025年'] });
    expect(range('五一去哪玩')).toMatchObject({ phrases: ['五一'], strip: [] });
    expect(range('去年五一去哪玩了')).toMatchObject({ phrases: ['去年五一'], strip: [] });
    expect(range('5月3日的会')).toMatchObject({ phrases: ['5月3日'], strip: ['5月3日'] });
  });

  it('weeks and months back and ahead, counted whole: 上上上周, 大上周 (= 上上周), 下下周, 下下个月', () => {
    expect(r('上上上周')).toEqual(['2026-04-20', '2026-04-26']);
    expect(range('大上周的会')).toMatchObject({ from: '2026-04-27', to: '2026-05-03', phrases: ['大上周'] }); // no stray 大
    expect(r('大上周')).toEqual(r('上上周'));
    expect(r('下下周')).toEqual(['2026-05-25', '2026-05-31']);
    expect(r('下下周一')).toEqual(['2026-05-25', '2026-05-25']);
    expect(r('下下个月')).toEqual(['2026-07-01', '2026-07-31']);
    expect(r('大上个月')).toEqual(['2026-03-01', '2026-03-31']);
    expect(r('the week before last')).toEqual(['2026-04-27', '2026-05-03']);
    expect(r('the week after next')).toEqual(['2026-05-25', '2026-05-31']);
    expect(r('the month before last')).toEqual(['2026-03-01', '2026-03-31']);
  });

  it('days ahead: 一周后, 两周后, in two weeks', () => {
    expect(r('一周后')).toEqual(['2026-05-22', '2026-05-22']);
    expect(r('两周后上线')).toEqual(['2026-05-29', '2026-05-29']);
    expect(r('三天后')).toEqual(['2026-05-18', '2026-05-18']);
    expect(r('in two weeks')).toEqual(['2026-05-29', '2026-05-29']);
    expect(r('in a week')).toEqual(['2026-05-22', '2026-05-22']);
  });

  it('not a time: 上周期, 每周一 (a habit), 接近三天, 一月一次, "may" the verb', () => {
    for (const q of ['上个周期的指标', '每周一开会', '接近三天没睡', '一月一次', 'we may 2x the budget', '十一个人', '上周天气'.slice(2)]) expect(r(q), q).toBeUndefined();
    expect(r('上周天气怎么样')).toEqual(['2026-05-04', '2026-05-10']); // 上周, not 上周日 (天气 is weather)
  });
});

describe('spans: the whole span, not its first day', () => {
  it('Chinese', () => {
    expect(r('上周一到周三')).toEqual(['2026-05-04', '2026-05-06']);
    expect(r('周三到周五')).toEqual(['2026-05-13', '2026-05-15']);
    expect(r('5月1日到5月3日')).toEqual(['2026-05-01', '2026-05-03']);
    expect(r('5月1日到3日')).toEqual(['2026-05-01', '2026-05-03']);
    expect(r('5月1号至3号的假')).toEqual(['2026-05-01', '2026-05-03']);
    expect(r('上周三到这周二')).toEqual(['2026-05-06', '2026-05-12']);
    expect(r('上周的周三')).toEqual(['2026-05-06', '2026-05-06']);
    expect(range('上周一到周三')!.phrases).toEqual(['上周一到周三']);
  });
  it('English', () => {
    expect(r('from May 1 to May 3')).toEqual(['2026-05-01', '2026-05-03']);
    expect(r('May 1-3')).toEqual(['2026-05-01', '2026-05-03']);
    expect(r('between Monday and Wednesday')).toEqual(['2026-05-11', '2026-05-13']);
    expect(r('from last Monday to Wednesday')).toEqual(['2026-05-11', '2026-05-13']);
    expect(r('Monday')).toBeUndefined(); // a weekday alone, without "on", is not read from a question
  });
});

describe('a month alone: the coming one when the question plans, else the last', () => {
  it('Chinese (said in May)', () => {
    expect(r('七月回成都')).toEqual(['2026-07-01', '2026-07-31']);
    expect(r('我打算七月回成都')).toEqual(['2026-07-01', '2026-07-31']);
    expect(r('我们七月回成都的机票订了吗')).toEqual(['2026-07-01', '2026-07-31']);
    expect(r('七月要去哪')).toEqual(['2026-07-01', '2026-07-31']);
    expect(r('七月去了哪')).toEqual(['2025-07-01', '2025-07-31']);
    expect(r('七月回成都了吗')).toEqual(['2025-07-01', '2025-07-31']);
    expect(r('七月的账单')).toEqual(['2025-07-01', '2025-07-31']);
    // a plan keeps a month's grace: a deadline of 5月3日 asked about on 5月15日 is this year's
    expect(r('5月3号要交的报告')).toEqual(['2026-05-03', '2026-05-03']);
    expect(r('三月要回成都')).toEqual(['2027-03-01', '2027-03-31']);
  });
  it('English', () => {
    expect(r('what will we do in July')).toEqual(['2026-07-01', '2026-07-31']);
    expect(r("I'm going to Chengdu in July")).toEqual(['2026-07-01', '2026-07-31']);
    expect(r('what did we do in July')).toEqual(['2025-07-01', '2025-07-31']);
    expect(r('last July')).toEqual(['2025-07-01', '2025-07-31']);
    expect(r('next March')).toEqual(['2027-03-01', '2027-03-31']);
    expect(r('in early June')).toEqual(['2025-06-01', '2025-06-10']);
  });
});

describe('newly read', () => {
  it('back from today: 一个月前, 半个月前, 前两天, 前几天, 最近三天, 最近一周; a month ago, a few days ago, the last 3 days', () => {
    expect(r('一个月前')).toEqual(['2026-04-08', '2026-04-22']);
    expect(r('半个月前')).toEqual(['2026-04-27', '2026-05-03']);
    expect(r('前两天说的')).toEqual(['2026-05-12', '2026-05-14']);
    expect(r('前几天')).toEqual(['2026-05-08', '2026-05-13']);
    expect(r('最近三天')).toEqual(['2026-05-13', '2026-05-15']);
    expect(r('最近一周')).toEqual(['2026-05-09', '2026-05-15']);
    expect(r('近一个月')).toEqual(['2026-04-16', '2026-05-15']);
    expect(r('这两天')).toEqual(['2026-05-13', '2026-05-15']);
    expect(r('提前两天通知')).toBeUndefined();
    expect(r('a month ago')).toEqual(r('一个月前'));
    expect(r('a few days ago')).toEqual(r('前几天'));
    expect(r('a couple of days ago')).toEqual(r('前两天'));
    expect(r('the last 3 days')).toEqual(r('最近三天'));
    expect(r('over the past two weeks')).toEqual(['2026-05-02', '2026-05-15']);
    expect(r('2 years ago')).toEqual(['2024-01-01', '2024-12-31']);
  });
  it('holidays: 劳动节 is 五一; the lunar ones from the table, the most recent begun', () => {
    expect(r('劳动节')).toEqual(r('五一'));
    expect(r('春节那几天')).toEqual(['2026-02-16', '2026-02-22']); // 除夕 02-16 to 初六
    expect(r('春节回老家')).toEqual(['2027-02-05', '2027-02-11']); // a trip still to make: the coming one
    expect(r('Chinese New Year')).toEqual(r('春节'));
    expect(r('除夕')).toEqual(['2026-02-16', '2026-02-16']);
    expect(r('清明节')).toEqual(['2026-04-03', '2026-04-07']); // 清明 04-05 ± 2
    expect(r('端午节')).toEqual(['2025-05-29', '2025-06-02']); // 2026's (06-19) has not come: 2025's (05-31)
    expect(r('中秋节')).toEqual(['2025-10-04', '2025-10-08']);
    expect(r('Mid-Autumn')).toEqual(r('中秋'));
    expect(r('今年中秋打算去哪')).toEqual(['2026-09-23', '2026-09-27']);
    expect(r('中秋要回家吗')).toEqual(['2026-09-23', '2026-09-27']); // a plan: the coming one
    expect(r('Christmas')).toEqual(['2025-12-24', '2025-12-26']);
  });
  it('a date written whole wins over a relative phrase next to it (most likely relative to it)', () => {
    expect(r('the weekend before 8 May 2023')).toEqual(['2023-05-08', '2023-05-08']);
    expect(r('上个月的周六值班')).toEqual(['2026-04-01', '2026-04-30']); // the relative phrase over a weekday placed by guess
  });
});
